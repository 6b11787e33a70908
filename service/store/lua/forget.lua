-- KEYS: log, seats, snap, snapidx, archived (one game's keys, one slot).
-- ARGV: the head the archive's row was checked at.
-- Forgets a game whose row was written and checked in the archive when the store was
-- too full to take its archived mark (every write refused; deletions are not): only
-- when the log is still the length the row holds, every key of the game goes in one
-- step, as release.lua does with a mark. Deletions and reads only, so a full Redis
-- runs it. The idempotency record is left to expire by itself.
-- Returns {1, owner or false} when forgotten, {-1, false} when the log grew since.
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[1]) then return {-1, false} end
local owner = redis.call('HGET', KEYS[2], 'owner')
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return {1, owner}
