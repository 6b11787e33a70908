-- Redis < 7 replicates scripts verbatim unless told to replicate their effects,
-- and then refuses writes after TIME; 7 always replicates effects.
if redis.replicate_commands then redis.replicate_commands() end
-- KEYS: log, idem, seats, snap, snapidx, on one Redis (not a cluster, where it
-- lives in another slot) the counter of actions appended, then on one Redis the
-- request's rate-limit counters (the last L keys).
-- ARGV: expected version, idempotency field ('' = none), fingerprint, ttl,
-- snapshot json ('' = none), '1' if the snapshot is a deal start, the actions
-- among the events (for the counter), n (seat fields), '1' if the caller decided
-- on the game it holds (read nothing), L (rate-limit counters), L window/quota
-- pairs, n field/value pairs for the seats hash, then the events.
-- Returns {'ok', version, count, ttl, ...}, {'duplicate', record}, {'stale', head}
-- (for a held game a few events behind, with those events and the seats hash),
-- or {'limited', count, ttl, ...} (a counter past its quota: nothing appended).
local CATCH_UP = 64
local version = redis.call('XLEN', KEYS[1])
if ARGV[2] ~= '' then
  local previous = redis.call('HGET', KEYS[2], ARGV[2])
  if previous then return {'duplicate', previous} end
end
local expected = tonumber(ARGV[1])
-- A held game's seats are the ones read at its version: an erased player's seat
-- changed them since, at the same version (see load.lua).
local held = ARGV[9] == '1'
local erased = held and (redis.call('HEXISTS', KEYS[3], 'erased:0') == 1
  or redis.call('HEXISTS', KEYS[3], 'erased:1') == 1)
if erased then return {'stale', tostring(version)} end
if expected ~= version then
  -- A held game a few events behind: what came after it, and the seats, so the
  -- caller catches up and decides again without reading the log first.
  if held and version > expected and version - expected <= CATCH_UP then
    return {'stale', tostring(version),
      redis.call('XRANGE', KEYS[1], (expected + 1) .. '-0', version .. '-0'),
      redis.call('HGETALL', KEYS[3])}
  end
  return {'stale', tostring(version)}
end
local n = tonumber(ARGV[8])
local limits = tonumber(ARGV[10])
local first_seat = 11 + 2 * limits
local first_event = first_seat + 2 * n
-- The request's rate limits, counted once: here, where the append is decided.
local counted, limited = {}, false
for i = 1, limits do
  local key = KEYS[#KEYS - limits + i]
  local count = redis.call('INCR', key)
  if count == 1 then redis.call('EXPIRE', key, ARGV[9 + 2 * i]) end
  counted[2 * i - 1] = count
  counted[2 * i] = redis.call('TTL', key)
  if count > tonumber(ARGV[10 + 2 * i]) then limited = true end
end
if limited then
  table.insert(counted, 1, 'limited')
  return counted
end
-- The time of the append, from the one clock every API process shares (RX3).
local now = redis.call('TIME')
local ms = tostring(now[1] * 1000 + math.floor(now[2] / 1000))
for i = first_event, #ARGV do
  version = version + 1
  redis.call('XADD', KEYS[1], version .. '-0', 'e', ARGV[i], 't', ms)
end
if n > 0 then
  redis.call('HSET', KEYS[3], unpack(ARGV, first_seat, first_event - 1))
end
if #KEYS - limits >= 6 and ARGV[7] ~= '0' then
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
table.insert(counted, 1, tostring(version))
table.insert(counted, 1, 'ok')
return counted
