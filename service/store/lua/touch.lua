-- KEYS: idem. ARGV: ttl. A write for WAIT to count: the record a retry found is
-- kept longer, and a replica that has this write has everything written before it.
return redis.call('EXPIRE', KEYS[1], ARGV[1])
