-- KEYS: the game's log, its rematch offer (one game's keys, one slot).
-- ARGV: the offer as it was read ('' = none), the offer to write, its time to live (s).
-- Writes the offer only if it is still what was read and the game's log is still
-- here: a finished game that has left for the archive takes no offer or answer.
-- Returns {'ok'}, {'moved', the offer now or ''}, or {'gone'}.
if redis.call('EXISTS', KEYS[1]) == 0 then return {'gone'} end
local now = redis.call('GET', KEYS[2]) or ''
if now ~= ARGV[1] then return {'moved', now} end
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
return {'ok'}
