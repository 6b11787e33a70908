-- KEYS: a game's seats hash.
-- ARGV: the erased player's id.
-- Every seat the player sat at loses its player's id and is marked erased, in one step
-- (a game in play keeps going: its seats' tokens are untouched). A game Redis no longer
-- holds, or where the player sits nowhere, is left as it is.
-- Returns the number of seats anonymised.
local done = 0
for seat = 0, 1 do
  if redis.call('HGET', KEYS[1], 'pid:' .. seat) == ARGV[1] then
    redis.call('HDEL', KEYS[1], 'pid:' .. seat)
    redis.call('HSET', KEYS[1], 'erased:' .. seat, '1')
    done = done + 1
  end
end
return done
