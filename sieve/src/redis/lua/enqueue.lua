-- ENQUEUE (cluster, step 2 of a push): the journaled URLs FILTER found new,
-- into their hosts' queues, as PUSH's second half; the journal record goes
-- in the same script, so a trip is either pending (its record there) or
-- enqueued (record gone), never both.
--   ARGV[1] prefix, [2] client id, [3] the trip's id, [4] FILTER's answer
--   for each journaled URL, in journal order ('1' new)
--   Reply: URLs enqueued; 0 if the client's record is not this trip's (a
--   resend after a lost reply, or a survivor got there first: the trip was
--   enqueued already).
-- On a frontier of several queue partitions, FILTER's answer has '1' only
-- for the URLs of partition 0's hosts (this slot's): the others went to
-- their partitions by ENQUEUE_PART before, and this step, which ends the
-- trip, counts it in NAME:moves (IsFinished's scan: redis_sieve.cc).
local owner = ARGV[2]
local K_journal = prefix .. 'journal:' .. owner
if redis.call('LINDEX', K_journal, 0) ~= ARGV[3] then return 0 end
local items = redis.call('LRANGE', K_journal, 2, -1)
local flags = ARGV[4]
if 2 * #flags ~= #items then
  return redis.error_reply('ENQUEUE: ' .. #flags .. ' answers for ' .. #items / 2 .. ' URLs')
end
local batches, count = by_host_batches(), 0
for i = 1, #flags do
  if string.byte(flags, i) == 49 then  -- '1'
    add_to_host(batches, items[2 * i], items[2 * i - 1])
    count = count + 1
  end
end
enqueue_batches(batches)
redis.call('DEL', K_journal)
redis.call('ZREM', prefix .. 'journals', owner)
redis.call('INCR', prefix .. 'moves')
return count
