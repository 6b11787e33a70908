-- Redis < 7 replicates scripts verbatim unless told to replicate their effects
-- (the rate-limit counters below are written); 7 always replicates effects.
if redis.replicate_commands then redis.replicate_commands() end
-- KEYS: log, snap, snapidx, seats, idem, then on one Redis the request's rate-limit
-- counters (the last L keys).
-- ARGV: target version ('' = latest), use snapshots ('1'/'0'), idempotency field ('' = none),
-- the version of the game the caller holds already ('' = none), L (rate-limit
-- counters, '' or absent = none), then L windows in seconds.
-- Returns {head, snapshot version, snapshot or false, entries after it up to
-- target, the seats hash, the idempotency record or false, {count, ttl, ...}}; when the
-- latest version is asked for and the caller holds it: {head, -1, false, {}, {}, the
-- record or false, {count, ttl, ...}}.
-- A game with an erased player's seat is never answered from what the caller holds:
-- its seats changed after the caller read them, at the same version.
-- The request's rate limits are counted first, whatever the game: a read is judged
-- by its caller (service/web/limits.py); a full Redis that refuses the INCR counts
-- the request as if it were counted, and the read goes on.
local limits = tonumber(ARGV[5] or '') or 0
local counted = {}
for i = 1, limits do
  local key = KEYS[5 + i]
  local count = redis.pcall('INCR', key)
  if type(count) == 'table' then
    if not string.find(count.err, 'OOM', 1, true) then return count end
    local ttl = redis.call('TTL', key)
    if ttl < 0 then ttl = tonumber(ARGV[5 + i]) end
    counted[2 * i - 1] = tonumber(redis.call('GET', key) or '0') + 1
    counted[2 * i] = ttl
  else
    if count == 1 then redis.call('EXPIRE', key, ARGV[5 + i]) end
    counted[2 * i - 1] = count
    counted[2 * i] = redis.call('TTL', key)
  end
end
local head = redis.call('XLEN', KEYS[1])
local erased = redis.call('HEXISTS', KEYS[4], 'erased:0') == 1
  or redis.call('HEXISTS', KEYS[4], 'erased:1') == 1
if ARGV[1] == '' and ARGV[4] ~= '' and head > 0 and head == tonumber(ARGV[4]) and not erased then
  local held_duplicate = false
  if ARGV[3] ~= '' then held_duplicate = redis.call('HGET', KEYS[5], ARGV[3]) end
  return {head, -1, false, {}, {}, held_duplicate, counted}
end
local seats = redis.call('HGETALL', KEYS[4])
if head == 0 then return {0, 0, false, {}, seats, false, counted} end
local duplicate = false
if ARGV[3] ~= '' then duplicate = redis.call('HGET', KEYS[5], ARGV[3]) end
local target = head
if ARGV[1] ~= '' then target = math.min(tonumber(ARGV[1]), head) end
local sv, snap = 0, false
if ARGV[2] == '1' then
  local latest = tonumber(redis.call('HGET', KEYS[2], 'latest_version') or '0')
  if latest > 0 and latest <= target then
    sv = latest
    snap = redis.call('HGET', KEYS[2], 'latest')
  end
  local found = redis.call('ZREVRANGEBYSCORE', KEYS[3], target, '-inf', 'LIMIT', 0, 1)
  if #found > 0 and tonumber(found[1]) > sv then
    sv = tonumber(found[1])
    snap = redis.call('HGET', KEYS[2], 'at:' .. found[1])
  end
  if not snap then sv = 0 end
end
local entries = {}
if target > sv then
  entries = redis.call('XRANGE', KEYS[1], (sv + 1) .. '-0', target .. '-0')
end
return {head, sv, snap, entries, seats, duplicate, counted}
