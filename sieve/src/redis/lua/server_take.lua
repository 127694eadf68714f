-- SERVER TAKE: one of a server's fetch slots for the fleet (RedisSieve::
-- TakeServerSlot: crawl's --per-ip and --ip-delay across processes).
--   ARGV[1] prefix, [2] the server ("ADDR:PORT"), [3] the slot's token
--   (unique per take: a resend finds it taken), [4] the client asking (its
--   place in the line), [5] the limit of slots (0: none), [6] the interval
--   between starts ms, [7] the lease ms, [8] the patience ms: how long a
--   refused client keeps its place without asking again
--   Keys: NAME:srv:<server>, a sorted set of the slots held (token ->
--   the lease's end); NAME:srvnext:<server>, the time the next start may
--   be; NAME:srvline:<server>, the clients refused and still waiting
--   (client -> when it was first refused, in microseconds), and
--   NAME:srvlive:<server> (client -> when its place lapses: its last ask
--   + the interval's rest + the patience). All expire when unused (PX).
--   Fairness: a free start goes to the waiting clients in line order; a
--   client takes one only if fewer clients wait before it than there are
--   free starts (slots free, and one at most while an interval applies),
--   so a client that gives a slot back and asks at once queues behind
--   the older waiters. A client that stops asking (killed, or no more
--   wanting the server) leaves the line when its place lapses.
--   Reply: 0 if taken (or already this token's); else ms to wait for the
--   interval (> 0), or -1 when every start is held or promised to older
--   waiters (ask again soon).
local server = ARGV[2]
local slots, next_key = prefix .. 'srv:' .. server, prefix .. 'srvnext:' .. server
local line, live = prefix .. 'srvline:' .. server, prefix .. 'srvlive:' .. server
local token, client, limit = ARGV[3], ARGV[4], tonumber(ARGV[5])
local interval, lease, patience = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local clock = redis.call('TIME')
local now_us = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local now = math.floor(now_us / 1000)
-- Slots whose holder died (or lost the connection) come back at their end.
redis.call('ZREMRANGEBYSCORE', slots, '-inf', now)
if redis.call('ZSCORE', slots, token) then return 0 end
-- Waiters that stopped asking leave the line.
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', live, '-inf', now)) do
  redis.call('ZREM', line, gone)
end
redis.call('ZREMRANGEBYSCORE', live, '-inf', now)
local rest = tonumber(redis.call('GET', next_key) or '0') - now
local free = 0
if rest <= 0 then
  rest = 0
  free = interval > 0 and 1 or math.huge
  if limit > 0 then free = math.min(free, limit - redis.call('ZCARD', slots)) end
end
local ahead = redis.call('ZRANK', line, client) or redis.call('ZCARD', line)
if ahead < free then
  redis.call('ZREM', line, client)
  redis.call('ZREM', live, client)
  redis.call('ZADD', slots, now + lease, token)
  redis.call('PEXPIRE', slots, lease)
  if interval > 0 then redis.call('SET', next_key, now + interval, 'PX', interval) end
  return 0
end
-- Refused: in line (keeping its first place), alive until its next ask is due.
redis.call('ZADD', line, 'NX', now_us, client)
redis.call('ZADD', live, now + rest + patience, client)
local last = tonumber(redis.call('ZRANGE', live, -1, -1, 'WITHSCORES')[2])
redis.call('PEXPIREAT', line, last + 1)
redis.call('PEXPIREAT', live, last + 1)
if rest > 0 then return rest end
return -1
