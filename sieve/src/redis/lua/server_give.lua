-- SERVER GIVE: gives a server slot back (RedisSieve::GiveServerSlot).
--   ARGV[1] prefix, [2] the server, [3] the slot's token, [4] ms from now
--   before the server's next start (0: no change), so the interval is
--   counted again from the request going out, as a process counts it.
--   Keys: as SERVER TAKE. Reply: 1 (also for a token no longer held).
local slots, next_key = prefix .. 'srv:' .. ARGV[2], prefix .. 'srvnext:' .. ARGV[2]
redis.call('ZREM', slots, ARGV[3])
local wait = tonumber(ARGV[4])
if wait > 0 then
  local next_start = now_ms() + wait
  if next_start > tonumber(redis.call('GET', next_key) or '0') then
    redis.call('SET', next_key, next_start, 'PX', wait)
  end
end
return 1
