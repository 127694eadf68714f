-- PUSH: test-and-set of each URL's k bits, then the enqueue of the new ones
-- into their hosts' queues.
--   ARGV[1] prefix, ARGV[2] n, ARGV[3] k, then per URL 3 + k values: the
--   URL, its queue id (its host, '' without host partitions, and its lane:
--   the prelude), its shard, its k bit
--   offsets in that shard's key NAME:bits:<shard> (decimal). The blocked
--   layout puts all k bits of a URL in one 512-bit block, so one shard; a
--   classic-layout URL whose probes span shards sends '*' as its shard and
--   k values "SHARD OFFSET" instead.
--   Reply: a string of n characters, '1' for a URL enqueued, '0' for one
--   whose bits were all set already (seen, or repeated earlier in the batch).
-- BITFIELD SET u1 returns each bit's old value: a URL is new iff one was 0.
-- Probes are gathered per shard into one BITFIELD call of up to 1000 probes
-- (Lua's unpack limit is ~8000 values), in URL order, so a URL repeated in
-- the batch finds the first copy's bits set. Where the time goes (Redis
-- 7.0): each ARGV value is a Lua string made when the script starts, each
-- redis.call costs ~5 us beyond its arguments, and a Lua number passed to
-- a command is formatted with "%.17g". So the offsets come as ARGV strings
-- handed to BITFIELD as they are, one table per shard is reused from call
-- to call ('SET' 'u1' '1' written once, then only the offsets), and the new
-- URLs go out in one RPUSH per host (chunks of 1000).
local n, k = tonumber(ARGV[2]), tonumber(ARGV[3])
local pending, fresh = {}, {}
local function flush(p)
  local old = redis.call('BITFIELD', unpack(p.args, 1, 4 * p.count + 1))
  local owner = p.owner
  for j = 1, p.count do
    if old[j] == 0 then fresh[owner[j]] = true end
  end
  p.count = 0
end
local function add(shard, offset, i)
  local p = pending[shard]
  if not p then
    p = {args = {prefix .. 'bits:' .. shard}, owner = {}, count = 0, filled = 0}
    pending[shard] = p
  end
  if p.count == 1000 then flush(p) end
  local c = p.count + 1
  local b = 4 * c - 2
  local args = p.args
  if c > p.filled then
    args[b], args[b + 1], args[b + 3] = 'SET', 'u1', '1'
    p.filled = c
  end
  args[b + 2] = offset
  p.owner[c] = i
  p.count = c
end
local stride = 3 + k
for i = 1, n do
  local a = 4 + (i - 1) * stride
  local shard = ARGV[a + 2]
  if shard == '*' then
    for q = a + 3, a + 2 + k do
      local s, o = string.match(ARGV[q], '^(%d+) (%d+)$')
      add(s, o, i)
    end
  else
    for q = a + 3, a + 2 + k do add(shard, ARGV[q], i) end
  end
end
for _, p in pairs(pending) do
  if p.count > 0 then flush(p) end
end
local out, batches = {}, by_host_batches()
for i = 1, n do
  local a = 4 + (i - 1) * stride
  if fresh[i] then
    out[i] = '1'
    add_to_host(batches, ARGV[a + 1], ARGV[a])
  else
    out[i] = '0'
  end
end
enqueue_batches(batches)
return table.concat(out)
