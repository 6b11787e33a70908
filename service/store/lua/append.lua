-- Redis < 7 replicates scripts verbatim unless told to replicate their effects,
-- and then refuses writes after TIME; 7 always replicates effects.
if redis.replicate_commands then redis.replicate_commands() end
-- KEYS: log, idem, seats, snap, snapidx, and on one Redis (not a cluster, where it
-- lives in another slot) the counter of actions appended.
-- ARGV: expected version, idempotency field ('' = none), fingerprint, ttl,
-- snapshot json ('' = none), '1' if the snapshot is a deal start, the actions
-- among the events (for the counter), n (seat fields), n field/value pairs for the
-- seats hash, then the events.
local version = redis.call('XLEN', KEYS[1])
if ARGV[2] ~= '' then
  local previous = redis.call('HGET', KEYS[2], ARGV[2])
  if previous then return {'duplicate', previous} end
end
if tonumber(ARGV[1]) ~= version then
  return {'stale', tostring(version)}
end
local n = tonumber(ARGV[8])
local first_event = 9 + 2 * n
-- The time of the append, from the one clock every API process shares (RX3).
local now = redis.call('TIME')
local ms = tostring(now[1] * 1000 + math.floor(now[2] / 1000))
for i = first_event, #ARGV do
  version = version + 1
  redis.call('XADD', KEYS[1], version .. '-0', 'e', ARGV[i], 't', ms)
end
if n > 0 then
  redis.call('HSET', KEYS[3], unpack(ARGV, 9, first_event - 1))
end
if KEYS[6] and ARGV[7] ~= '0' then
  redis.call('INCRBY', KEYS[6], ARGV[7])
end
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3] .. ' ' .. version)
  redis.call('EXPIRE', KEYS[2], ARGV[4])
end
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[4], 'latest_version', version, 'latest', ARGV[5])
  if ARGV[6] == '1' then
    redis.call('HSET', KEYS[4], 'at:' .. version, ARGV[5])
    redis.call('ZADD', KEYS[5], version, version)
  end
end
-- Wake the waiters of this game in every server process, with the new events
-- (service.live.watcher): "<game_id> <version>", then an event's JSON a line.
local news = table.concat(ARGV, '\n', first_event, #ARGV)
__PUBLISH__
return {'ok', tostring(version)}
