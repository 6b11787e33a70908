-- KEYS: one delivery's hash.
-- ARGV: its new record (JSON) split where its body goes: the text before, the text after.
-- Writes the delivery's new record (an attempt's outcome, a new round) with the body the
-- delivery holds now, not the body the writer read: a player's erasure may have rewritten
-- it (anonymised) since, and must not be undone. A delivery gone (forgotten by age) is
-- not made again. Returns 1 when written, 0 when the delivery is gone.
local stored = redis.call('HGET', KEYS[1], 'record')
if not stored then return 0 end
local body = cjson.decode(stored)['body']
redis.call('HSET', KEYS[1], 'record', ARGV[1] .. cjson.encode(body) .. ARGV[2])
return 1
