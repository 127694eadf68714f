-- ENQUEUE_PART (cluster, step 2 of a push on a frontier of several queue
-- partitions, before ENQUEUE): the trip's new URLs whose hosts belong to
-- one partition other than 0, into their hosts' queues there. The
-- partition remembers the client's last trip enqueued there
-- (<prefix>etrip:<client>, for [4] ms), so a resend, or a survivor's replay
-- of a journal whose client got this far, does not queue them twice.
--   ARGV[1] the partition's prefix "{NAME:qI}:", [2] client id, [3] the
--   trip's id, [4] how long the record is kept (ms), then per URL its
--   queue element and its queue id (host and lane: the prelude)
--   Reply: URLs enqueued; 0 if the record is of this trip or a later one.
local K_trip = prefix .. 'etrip:' .. ARGV[2]
if tonumber(redis.call('GET', K_trip) or '0') >= tonumber(ARGV[3]) then return 0 end
local batches, count = by_host_batches(), 0
for i = 5, #ARGV, 2 do
  add_to_host(batches, ARGV[i + 1], ARGV[i])
  count = count + 1
end
enqueue_batches(batches)
redis.call('SET', K_trip, ARGV[3], 'PX', tonumber(ARGV[4]))
return count
