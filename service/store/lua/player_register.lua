-- KEYS: the app's players hash (app_player_id -> player id), in the app's slot.
-- ARGV: record key prefix, app_player_id, new player id, name, created, token hash,
--       the app's cap of players.
-- Registers a player once per app_player_id (a second registration renames it and
-- gives it a new token) so an app's retried call makes no second player; refuses a
-- new player past the cap. Returns {player id, the replaced token hash or false},
-- or {false, 'full'}.
local id = redis.call('HGET', KEYS[1], ARGV[2])
if not id then
  if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[7]) then return {false, 'full'} end
  id = ARGV[3]
  redis.call('HSET', KEYS[1], ARGV[2], id)
  redis.call('HSET', ARGV[1] .. id, 'id', id, 'app_player_id', ARGV[2], 'created', ARGV[5],
    'rating', '1500', 'deviation', '350', 'volatility', '0.06', 'games', '0')
end
local record = ARGV[1] .. id
local replaced = redis.call('HGET', record, 'token')
redis.call('HSET', record, 'name', ARGV[4], 'token', ARGV[6])
return {id, replaced}
