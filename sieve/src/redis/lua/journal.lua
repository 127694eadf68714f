-- JOURNAL (cluster, step 0 of a push): the trip's candidate URLs, written
-- in {NAME} before any filter bit is set, so that a client dying between
-- FILTER and ENQUEUE leaves them where a survivor finds them.
--   ARGV[1] prefix, [2] client id, [3] the trip's id, [4] how long the
--   record waits for its client (ms: the URL lease time), then per URL its
--   queue element and its queue id (host and lane: the prelude; '' without
--   host partitions)
--   Reply: 1.
-- NAME:journal:<client> is a list: the trip's id, the server time it was
-- written (ms), then element, host, element, host, ... (one record per
-- client: a client's trips run one at a time, the next overwrites it).
-- NAME:journals scores each client with a record by the time after which
-- it counts as dead (a survivor's POP then claims the record: below).
local key = prefix .. 'journal:' .. ARGV[2]
local now = now_ms()
redis.call('DEL', key)
redis.call('RPUSH', key, ARGV[3], now)
for first = 5, #ARGV, 1000 do
  redis.call('RPUSH', key, unpack(ARGV, first, math.min(#ARGV, first + 999)))
end
redis.call('ZADD', prefix .. 'journals', now + tonumber(ARGV[4]), ARGV[2])
return 1
