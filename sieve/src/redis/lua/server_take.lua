-- SERVER TAKE: one of a server's fetch slots for the fleet (RedisSieve::
-- TakeServerSlot: crawl's --per-ip and --ip-delay across processes).
--   ARGV[1] prefix, [2] the server ("ADDR:PORT"), [3] the slot's token
--   (unique per take: a resend finds it taken), [4] the limit of slots
--   (0: none), [5] the interval between starts ms, [6] the lease ms
--   Keys: NAME:srv:<server>, a sorted set of the slots held (token ->
--   the lease's end); NAME:srvnext:<server>, the time the next start may
--   be. Both expire when unused (PX), so idle servers leave nothing.
--   Reply: 0 if taken (or already this token's); else ms to wait for the
--   interval (> 0), or -1 when every slot is held (ask again later).
local slots, next_key = prefix .. 'srv:' .. ARGV[2], prefix .. 'srvnext:' .. ARGV[2]
local token, limit = ARGV[3], tonumber(ARGV[4])
local interval, lease = tonumber(ARGV[5]), tonumber(ARGV[6])
local now = now_ms()
-- Slots whose holder died (or lost the connection) come back at their end.
redis.call('ZREMRANGEBYSCORE', slots, '-inf', now)
if redis.call('ZSCORE', slots, token) then return 0 end
local next_start = tonumber(redis.call('GET', next_key) or '0')
if next_start > now then return next_start - now end
if limit > 0 and redis.call('ZCARD', slots) >= limit then return -1 end
redis.call('ZADD', slots, now + lease, token)
redis.call('PEXPIRE', slots, lease)
if interval > 0 then redis.call('SET', next_key, now + interval, 'PX', interval) end
return 0
