-- RENEW: extends this client's URL leases (a fetch that outlives lease_time
-- keeps its URL; the heartbeat sends them every lease_time / 3).
--   ARGV[1] prefix, [2] client id, [3] URL lease ms, [4..] queue elements
--   Reply: how many leases were renewed (a lease no longer this client's,
--   because it expired and went to another, is left alone).
local owner = ARGV[2]
local deadline = now_ms() + tonumber(ARGV[3])
local renewed = 0
for i = 4, #ARGV do
  if redis.call('HGET', K_owners, ARGV[i]) == owner then
    redis.call('ZADD', K_leases, 'XX', deadline, ARGV[i])
    renewed = renewed + 1
  end
end
return renewed
