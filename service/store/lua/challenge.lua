-- KEYS: the challenge's hash (in the app's slot).
-- ARGV: 1 'accept' | 'decline' | 'cancel' | 'read', 2 the acting player, 3 now (ms),
--       4 how long an offered challenge stands (ms), 5 the game id an accept makes (random),
--       6 the seat the challenger takes in it (0 or 1, random), 7 the random nonces of the
--       game's two seat tokens ('<seat 0> <seat 1>').
-- One script: a challenge is accepted once, by the challenged player only, and never
-- after a decline, a cancel or its time; the challenger alone cancels it.
-- Returns {status, the challenge's record (HGETALL's list)}, or {'gone'} when there is
-- no such challenge: one round trip a read or a change.
if redis.call('EXISTS', KEYS[1]) == 0 then return {'gone'} end
local h = redis.call('HMGET', KEYS[1], 'status', 'from', 'to', 'created', 'game', 'from_seat')
local status, from, to = h[1], h[2], h[3]
local now = tonumber(ARGV[3])
if status == 'offered' and tonumber(h[4]) + tonumber(ARGV[4]) < now then
  status = 'expired'
  redis.call('HSET', KEYS[1], 'status', status)
end
local op, actor = ARGV[1], ARGV[2]
if status == 'offered' then
  if op == 'accept' and actor == to then
    status = 'accepted'
    redis.call('HSET', KEYS[1], 'status', status, 'game', ARGV[5], 'from_seat', ARGV[6],
      'nonces', ARGV[7])
    h[5], h[6] = ARGV[5], ARGV[6]
  elseif op == 'decline' and actor == to then
    status = 'declined'
    redis.call('HSET', KEYS[1], 'status', status)
  elseif op == 'cancel' and actor == from then
    status = 'cancelled'
    redis.call('HSET', KEYS[1], 'status', status)
  end
end
return {status, redis.call('HGETALL', KEYS[1])}
