-- TAKE PAGE: one page of the fleet's budget (RedisSieve::TakePage).
--   ARGV[1] prefix, [2] the limit
--   Reply: 1 if NAME:pages was below the limit (and is now one more), else 0.
local key = ARGV[1] .. 'pages'
if tonumber(redis.call('GET', key) or '0') >= tonumber(ARGV[2]) then return 0 end
redis.call('INCR', key)
return 1
