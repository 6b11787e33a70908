-- KEYS: the game's rated mark; for a game between two players, the pair's recent rated
--       games (a sorted set by end time, ms); every key in the app's slot.
-- ARGV: record key prefix, the pool's board key, history key prefix, history cap, mark
--       TTL (s), now (ms), the pair's window (ms), the pair's games counted in it, the
--       games a player needs on the board, the pool's field prefix in the record ('' for
--       the default pool), the highest deviation on the board (above it a rating is
--       provisional), then per player to rate (none, one or two): id, games count read,
--       rating, deviation, volatility, history entry (JSON).
-- Writes a rated game's new ratings once: the mark says the game was rated, so a
-- second run of the rating (a job run twice) changes nothing. When a player's games
-- count is no longer the one read, another game was rated between the read and this
-- write: nothing is written and the caller reads again. A record with no field of the
-- pool has played no rated game in it (0 games). When the pair has had its
-- counted games within the window (RX8), only the mark is written.
-- Returns 1 when written, 0 when already rated, -1 when read again is needed, 2 when
-- the pair's window is full.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local fixed = 11
local prefix = ARGV[10]
local n = (#ARGV - fixed) / 6
for i = 0, n - 1 do
  local base = fixed + i * 6
  local record = ARGV[1] .. ARGV[base + 1]
  local games = redis.call('HGET', record, prefix .. 'games')
  if not games and redis.call('EXISTS', record) == 1 then games = '0' end
  if games ~= ARGV[base + 2] then return -1 end
end
local now, window = tonumber(ARGV[6]), tonumber(ARGV[7])
if KEYS[2] then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[8]) then
    redis.call('SET', KEYS[1], '1', 'EX', ARGV[5])
    return 2
  end
  redis.call('ZADD', KEYS[2], now, KEYS[1])
  redis.call('PEXPIRE', KEYS[2], window)
end
for i = 0, n - 1 do
  local base = fixed + i * 6
  local id = ARGV[base + 1]
  local games = tonumber(ARGV[base + 2]) + 1
  redis.call('HSET', ARGV[1] .. id, prefix .. 'rating', ARGV[base + 3],
    prefix .. 'deviation', ARGV[base + 4], prefix .. 'volatility', ARGV[base + 5],
    prefix .. 'games', games)
  if games >= tonumber(ARGV[9]) and tonumber(ARGV[base + 4]) <= tonumber(ARGV[11]) then
    redis.call('ZADD', ARGV[2], ARGV[base + 3], id)
  else
    redis.call('ZREM', ARGV[2], id)
  end
  redis.call('LPUSH', ARGV[3] .. id, ARGV[base + 6])
  redis.call('LTRIM', ARGV[3] .. id, 0, tonumber(ARGV[4]) - 1)
end
redis.call('SET', KEYS[1], '1', 'EX', ARGV[5])
return 1
