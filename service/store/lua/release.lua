-- KEYS: log, seats, snap, snapidx, archived (one game's keys, one slot).
-- Forgets an archived game: only when its archived mark is there (written once the
-- archive's row was read back and checked) and the log is still the length the
-- mark names, every key of the game goes in one step; nothing is left half gone.
-- The idempotency record is not among them: it expires by itself a day after the
-- game's last keyed request, and until then a retry is answered from it.
-- Returns {1, owner or false} when forgotten, {0, false} when not archived,
-- {-1, false} when the log grew after it was archived (it is then archived again).
local mark = redis.call('GET', KEYS[5])
if not mark then return {0, false} end
local head = tonumber(string.match(mark, '^(%d+):'))
if redis.call('XLEN', KEYS[1]) ~= head then
  redis.call('DEL', KEYS[5])
  return {-1, false}
end
local owner = redis.call('HGET', KEYS[2], 'owner')
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return {1, owner}
