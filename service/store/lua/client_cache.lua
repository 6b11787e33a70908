-- KEYS: a client app's cached record. ARGV: ttl, then field, value pairs.
-- Fills the cache from the database only where no record is cached: a revocation
-- writes its record over the cache after its commit, so a fill that read the
-- database before that commit never puts the app back as active.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
