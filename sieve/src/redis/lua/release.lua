-- RELEASE: gives leased URLs back to their hosts' queues, each to its own
-- lane (NAME:lhosts names it), at the tail (Defer) or the head in the given
-- order (a closing client's unreturned pops); and, when closing, every host
-- the client holds.
--   ARGV[1] prefix, [2] client id, [3] 'tail' or 'head', [4] cooldown ms,
--   [5] '1' to give back all the client's hosts, [6..] URLs
--   Reply: how many URLs were released (a URL whose lease is no longer this
--   client's is skipped: it expired and went to another client).
local now = now_ms()
local owner = ARGV[2]
local head = ARGV[3] == 'head'
local released = 0
local first, last, step = 6, #ARGV, 1
if head then first, last, step = #ARGV, 6, -1 end
for i = first, last, step do
  local u = ARGV[i]
  if redis.call('HGET', K_owners, u) == owner then
    enqueue(unlease(u), {u}, 1, 1, head, now)
    released = released + 1
  end
end
if ARGV[5] == '1' then
  for _, h in ipairs(redis.call('SMEMBERS', prefix .. 'held:' .. owner)) do
    if redis.call('HGET', K_hostowners, h) == owner then
      give_back(h, owner, now, tonumber(ARGV[4]))
    end
  end
  redis.call('DEL', prefix .. 'held:' .. owner)
  redis.call('ZREM', prefix .. 'clients', owner)
  not_hungry(owner)
end
return released
