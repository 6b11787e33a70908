-- KEYS: the app's pool of seeks (sorted set: seek id -> the seeker's rating).
-- ARGV: 1 key prefix of the app ('sch:{client:<app>}:'), 2 'create' | 'wait' | 'cancel',
--       3 seek id, 4 now (ms), 5 alive (ms: how long a seek lives unless waited on),
--       6 a random game id for a pairing made now, 7 which seat the pairing's older seek
--       takes (0 or 1, random), 8 the window at first (rating points), 9 its widening per
--       second, 10 its widest, 11 the most seeks the pool holds, 12 neighbours looked at
--       per side, 13 seconds a seek's record is kept, 14 the random nonces of the two seat
--       tokens of a pairing made now ('<seat 0> <seat 1>'), and for 'create': 15 player
--       id, 16 rating, 17 kind (what must be equal to pair: variant, rated, clock), 18
--       lowest and 19 highest rating accepted ('' for none).
-- One script, one slot: a seek is paired once, never with its own player, and a
-- cancelled or expired seek never. A pairing keeps its game id and its seats' nonces
-- in both seeks' records, so either seeker's wait makes the same game.
-- Returns {status, seek id, game, seat, partner, nonces}.
local P, op, id, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local pool = KEYS[1]
local function key(s) return P .. 'seek:' .. s end

local function answer(s)
  local h = redis.call('HMGET', key(s), 'status', 'game', 'seat', 'partner', 'nonces')
  return {h[1] or 'gone', s, h[2] or false, h[3] or false, h[4] or false, h[5] or false}
end

local function window(created, low, high, rating)
  local w = tonumber(ARGV[8]) + tonumber(ARGV[9]) * math.max(0, now - created) / 1000
  w = math.min(w, tonumber(ARGV[10]))
  return w
end

local function accepts(seek, rating)
  -- seek: {player, rating, kind, created, low, high, status, alive}
  if seek[5] ~= '' and rating < tonumber(seek[5]) then return false end
  if seek[6] ~= '' and rating > tonumber(seek[6]) then return false end
  return true
end

local FIELDS = {'player', 'rating', 'kind', 'created', 'low', 'high', 'status', 'alive'}
local function read(s) return redis.call('HMGET', key(s), unpack(FIELDS)) end

local function drop(s, why)
  redis.call('ZREM', pool, s)
  local h = read(s)
  if h[7] == 'waiting' then
    redis.call('HSET', key(s), 'status', why)
    redis.call('DEL', P .. 'seeking:' .. h[1])
  end
end

local function live(h) return h[7] == 'waiting' and tonumber(h[8]) >= now end

local function pair(s)
  local me = read(s)
  if me[7] ~= 'waiting' then return answer(s) end
  if tonumber(me[8]) < now then drop(s, 'expired'); return answer(s) end
  local r = tonumber(me[2])
  local w = window(tonumber(me[4]))
  local k = tonumber(ARGV[12])
  local seen, found = {}, {}
  local above = redis.call('ZRANGEBYSCORE', pool, r, r + w, 'LIMIT', 0, k)
  local below = redis.call('ZREVRANGEBYSCORE', pool, r, r - w, 'LIMIT', 0, k)
  for _, list in ipairs({above, below}) do
    for _, c in ipairs(list) do
      if c ~= s and not seen[c] then
        seen[c] = true
        local h = read(c)
        if not h[7] or not live(h) then
          drop(c, 'expired')
        elseif h[1] ~= me[1] and h[3] == me[3] then
          local cr = tonumber(h[2])
          local diff = math.abs(cr - r)
          if diff <= window(tonumber(h[4])) and accepts(me, cr) and accepts(h, r) then
            table.insert(found, {diff, tonumber(h[4]), c, h})
          end
        end
      end
    end
  end
  if #found == 0 then return answer(s) end
  table.sort(found, function(a, b)
    if a[1] ~= b[1] then return a[1] < b[1] end
    if a[2] ~= b[2] then return a[2] < b[2] end
    return a[3] < b[3]
  end)
  local c, h = found[1][3], found[1][4]
  local game = ARGV[6]
  local older_seat = tonumber(ARGV[7])
  local mine = older_seat
  if tonumber(me[4]) > tonumber(h[4]) or (me[4] == h[4] and s > c) then mine = 1 - older_seat end
  local nonces = ARGV[14]
  redis.call('HSET', key(s), 'status', 'paired', 'game', game, 'seat', mine, 'partner', c,
    'nonces', nonces)
  redis.call('HSET', key(c), 'status', 'paired', 'game', game, 'seat', 1 - mine, 'partner', s,
    'nonces', nonces)
  redis.call('ZREM', pool, s, c)
  redis.call('DEL', P .. 'seeking:' .. me[1], P .. 'seeking:' .. h[1])
  return answer(s)
end

if op == 'create' and redis.call('EXISTS', key(id)) == 1 then
  -- a new seek's id is random: one already there is never taken over
  return {'gone', id, false, false, false, false}
end
if op == 'create' then
  local player = ARGV[15]
  local earlier = redis.call('GET', P .. 'seeking:' .. player)
  if earlier then
    local h = read(earlier)
    if live(h) then return {'exists', earlier, false, false, false, false} end
    drop(earlier, 'expired')
  end
  if redis.call('ZCARD', pool) >= tonumber(ARGV[11]) then
    for _, c in ipairs(redis.call('ZRANGE', pool, 0, -1)) do
      local h = read(c)
      if not h[7] or not live(h) then drop(c, 'expired') end
    end
    if redis.call('ZCARD', pool) >= tonumber(ARGV[11]) then return {'full', id, false, false, false, false} end
  end
  redis.call('HSET', key(id), 'player', player, 'rating', ARGV[16], 'kind', ARGV[17],
    'created', now, 'low', ARGV[18], 'high', ARGV[19], 'status', 'waiting',
    'alive', now + tonumber(ARGV[5]))
  redis.call('EXPIRE', key(id), tonumber(ARGV[13]))
  redis.call('ZADD', pool, tonumber(ARGV[16]), id)
  redis.call('SET', P .. 'seeking:' .. player, id, 'EX', tonumber(ARGV[13]))
  return pair(id)
end

if redis.call('EXISTS', key(id)) == 0 then return {'gone', id, false, false, false, false} end
if op == 'cancel' then
  local h = read(id)
  if h[7] == 'waiting' then drop(id, 'cancelled') end
  return answer(id)
end
-- 'wait': the seek is waited on, so it lives on; a pairing is tried again with the
-- window its waiting has widened.
local h = read(id)
if h[7] == 'waiting' and tonumber(h[8]) >= now then
  redis.call('HSET', key(id), 'alive', now + tonumber(ARGV[5]))
end
return pair(id)
