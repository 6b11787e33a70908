-- KEYS: the game's rated mark (in the app's slot: every key here is).
-- ARGV: record key prefix, board key, history key prefix, history cap, mark TTL (s),
--       then per rated player (one or two): id, games count read, rating, deviation,
--       volatility, history entry (JSON).
-- Writes a rated game's new ratings once: the mark says the game was rated, so a
-- second run of the rating (a job run twice) changes nothing. When a player's games
-- count is no longer the one read, another game was rated between the read and this
-- write: nothing is written and the caller reads again.
-- Returns 1 when written, 0 when already rated, -1 when read again is needed.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local n = (#ARGV - 5) / 6
for i = 0, n - 1 do
  local base = 5 + i * 6
  local games = redis.call('HGET', ARGV[1] .. ARGV[base + 1], 'games')
  if games ~= ARGV[base + 2] then return -1 end
end
for i = 0, n - 1 do
  local base = 5 + i * 6
  local id = ARGV[base + 1]
  redis.call('HSET', ARGV[1] .. id, 'rating', ARGV[base + 3], 'deviation', ARGV[base + 4],
    'volatility', ARGV[base + 5], 'games', tonumber(ARGV[base + 2]) + 1)
  redis.call('ZADD', ARGV[2], ARGV[base + 3], id)
  redis.call('LPUSH', ARGV[3] .. id, ARGV[base + 6])
  redis.call('LTRIM', ARGV[3] .. id, 0, tonumber(ARGV[4]) - 1)
end
redis.call('SET', KEYS[1], '1', 'EX', ARGV[5])
return 1
