#include "scripts.h"

#include <string>

namespace sieve::internal {
namespace {

// Shared by every script but FILTER. ARGV[1] is always the key prefix
// "NAME:" ("{NAME}:" on a cluster: one slot); keys are built from it, and
// KEYS[1] is NAME:meta, a key of that slot, so a cluster routes the call.
//
// A host h's URLs wait in the list NAME:q:<h>; h = '' is the shared queue of
// a frontier without host partitions (no host_key): nobody leases it.
// A host with queued URLs is in exactly one of:
//   leased   NAME:hostowners (h -> client) and NAME:hostleases (h -> deadline)
//            and the holder's set NAME:held:<client>;
//   ready    the list NAME:ready (takeable now, FIFO), or NAME:cooling (h ->
//            the time it may be taken: it was given back less than a
//            cooldown ago).
// A host with an empty queue and no holder is in none. NAME:cool:<h> (PX
// expiry) remembers a give-back's cooldown end for a host whose queue was
// empty then. NAME:queued counts the URLs of all host queues.
// URL leases: NAME:leases (URL -> deadline), NAME:owners (URL -> client),
// NAME:lhosts (URL -> host, so an expired lease goes back to its host; none
// for the shared queue '').
constexpr char kCommon[] = R"lua(
local prefix = ARGV[1]
local K_queued, K_ready, K_cooling = prefix .. 'queued', prefix .. 'ready', prefix .. 'cooling'
local K_hostowners, K_hostleases = prefix .. 'hostowners', prefix .. 'hostleases'
local K_leases, K_owners, K_lhosts = prefix .. 'leases', prefix .. 'owners', prefix .. 'lhosts'
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function qkey(h) return prefix .. 'q:' .. h end
-- h just got URLs and has no holder: takeable now, or when its cooldown ends.
local function make_ready(h, now)
  if h == '' or redis.call('HEXISTS', K_hostowners, h) == 1 then return end
  local cool = tonumber(redis.call('GET', prefix .. 'cool:' .. h) or '0')
  if cool > now then
    redis.call('ZADD', K_cooling, cool, h)
  else
    redis.call('RPUSH', K_ready, h)
  end
end
-- A host queue's elements are batches of URLs (format v4: sieve/redis_module/
-- src/queue_batch.h has the layout and the rules; the crawlsieve module
-- writes the same bytes): byte 4, the base (varint length, bytes: the first
-- URL up to its last '/'), then per URL: varint shared (bytes of the base
-- it starts with), varint length and the rest, varint length and the
-- payload. Lease elements (ARGV, replies, lease keys) are the URL, then NUL
-- and the payload if any.
-- A frontier whose NAME:meta ends with ' queue=deflate' stores its batches
-- packed (byte 5, deflated: sieve/redis_module/src/batch_codec.h) through
-- the module's CRAWLSIEVE.PACK, batches of up to 4 KiB before deflate; a
-- list element is read through CRAWLSIEVE.UNPACK when packed, as it is
-- otherwise. Such a frontier is only opened where the module is loaded.
local packed_frontier = nil
local function packs()
  if packed_frontier == nil then
    local meta = redis.call('GET', prefix .. 'meta') or ''
    packed_frontier = string.sub(meta, -14) == ' queue=deflate'
  end
  return packed_frontier
end
local function max_batch() return packs() and 4096 or 2048 end
local function codec(command, b)
  local r = redis.pcall(command, b)
  if type(r) == 'table' and r.err then
    error({err = r.err .. ' (' .. prefix .. 'meta says the host queues hold packed batches: ' ..
      'the crawlsieve module must be loaded)'})
  end
  return r
end
local function stored(b)
  if packs() then return codec('CRAWLSIEVE.PACK', b) end
  return b
end
local function batch_of(b)
  if string.byte(b, 1) == 5 then return codec('CRAWLSIEVE.UNPACK', b) end
  return b
end
-- Before any write: a packed frontier on a server without the module
-- fails here, whole, not halfway (a script's writes are not undone).
if packs() then codec('CRAWLSIEVE.PACK', '') end
local function varint(n)
  if n < 128 then return string.char(n) end
  local s = ''
  while n >= 128 do
    s = s .. string.char(n % 128 + 128)
    n = math.floor(n / 128)
  end
  return s .. string.char(n)
end
local function read_varint(s, pos)
  local n, mul = 0, 1
  while true do
    local b = string.byte(s, pos)
    pos = pos + 1
    if b < 128 then return n + b * mul, pos end
    n, mul = n + (b - 128) * mul, mul * 128
  end
end
local function split_element(e)
  local nul = string.find(e, '\0', 1, true)
  if nul then return string.sub(e, 1, nul - 1), string.sub(e, nul + 1) end
  return e, ''
end
local function batch_entry(base, u, p)
  local n, shared = math.min(#base, #u), 0
  if string.sub(u, 1, n) == base then
    shared = n
  else
    while shared < n and string.byte(base, shared + 1) == string.byte(u, shared + 1) do
      shared = shared + 1
    end
  end
  return varint(shared) .. varint(#u - shared) .. string.sub(u, shared + 1) .. varint(#p) .. p
end
local function new_batch(u, p)
  local base = string.match(u, '^(.*/)') or ''
  return '\4' .. varint(#base) .. base .. batch_entry(base, u, p)
end
-- A batch's base and the position of its first entry; a list element that
-- is not a v4 batch (a frontier written by an older build) is an error.
-- (A packed element is unpacked by batch_of first.)
local function batch_base(key, b)
  if string.byte(b, 1) ~= 4 then
    error({err = 'ERR ' .. key .. ' holds a queue element that is not of format v4 (its first byte is ' ..
      tostring(string.byte(b, 1)) .. '): a frontier written by another build; not read'})
  end
  local len, pos = read_varint(b, 2)
  return string.sub(b, pos, pos + len - 1), pos + len
end
-- Appends (or prepends) the lease elements els[first..last] to h's queue:
-- at the tail, into its last batch while that stays within MAX_BATCH, then
-- new batches; at the head, a batch each (els[last] ends up first). Makes
-- h ready if its queue was empty.
local function enqueue(h, els, first, last, head, now)
  local key = qkey(h)
  local tail = redis.call('LINDEX', key, -1)
  local was_empty = not tail
  local cap = max_batch()
  if head then
    for i = first, last do
      local u, p = split_element(els[i])
      redis.call('LPUSH', key, new_batch(u, p))
    end
  else
    local batches, n, base, grown = {}, 0, nil, false
    if not was_empty then
      batches[1] = batch_of(tail)
      base = batch_base(key, batches[1])
      n = 1
    end
    for i = first, last do
      local u, p = split_element(els[i])
      local entry = n > 0 and batch_entry(base, u, p)
      if entry and #batches[n] + #entry <= cap then
        batches[n] = batches[n] .. entry
        if n == 1 and not was_empty then grown = true end
      else
        n = n + 1
        batches[n] = new_batch(u, p)
        base = batch_base(key, batches[n])
      end
    end
    local from = 1
    if not was_empty then
      if grown then redis.call('LSET', key, -1, stored(batches[1])) end
      from = 2
    end
    if packs() then
      for c = from, n do batches[c] = stored(batches[c]) end
    end
    for c = from, n, 1000 do
      redis.call('RPUSH', key, unpack(batches, c, math.min(n, c + 999)))
    end
  end
  redis.call('INCRBY', K_queued, last - first + 1)
  if was_empty then make_ready(h, now) end
end
-- Takes up to `want` URLs from the head of h's queue as lease elements,
-- appended to `into` (and h to `hosts`); returns how many. A head batch
-- partly taken is written back unpacked: the next pops of the host read it
-- without UNPACK (one such batch per host being taken from).
local function dequeue(h, want, into, hosts)
  local key, got = qkey(h), 0
  while got < want do
    local b = redis.call('LINDEX', key, 0)
    if not b then break end
    b = batch_of(b)
    local base, start = batch_base(key, b)
    local pos = start
    while pos <= #b and got < want do
      local shared, rest, plen
      shared, pos = read_varint(b, pos)
      rest, pos = read_varint(b, pos)
      local u = string.sub(base, 1, shared) .. string.sub(b, pos, pos + rest - 1)
      pos = pos + rest
      plen, pos = read_varint(b, pos)
      if plen > 0 then u = u .. '\0' .. string.sub(b, pos, pos + plen - 1) end
      pos = pos + plen
      got = got + 1
      into[#into + 1] = u
      hosts[#hosts + 1] = h
    end
    if pos > #b then
      redis.call('LPOP', key)
    else
      redis.call('LSET', key, 0, string.sub(b, 1, start - 1) .. string.sub(b, pos))
    end
  end
  if got > 0 then redis.call('DECRBY', K_queued, got) end
  return got
end
-- New URLs gathered per host (hosts in the order they first came), then
-- enqueued in one RPUSH per host and 1000 URLs.
local function by_host_batches() return {lists = {}, hosts = {}} end
local function add_to_host(b, h, u)
  local list = b.lists[h]
  if not list then
    list = {}
    b.lists[h] = list
    b.hosts[#b.hosts + 1] = h
  end
  list[#list + 1] = u
end
local function enqueue_batches(b)
  if #b.hosts == 0 then return end
  local now = now_ms()
  for _, h in ipairs(b.hosts) do
    local list = b.lists[h]
    for first = 1, #list, 1000 do
      enqueue(h, list, first, math.min(#list, first + 999), false, now)
    end
  end
end
-- Clients waiting for a host (POP): the one waiting longest whose last try
-- is recent, dropping stale ones; joining (since: the first try) and leaving.
local K_hungry, K_hungryuntil = prefix .. 'hungry', prefix .. 'hungryuntil'
local function first_hungry(now)
  while true do
    local c = redis.call('ZRANGE', K_hungry, 0, 0)[1]
    if not c then return nil end
    if tonumber(redis.call('ZSCORE', K_hungryuntil, c) or '0') > now then return c end
    redis.call('ZREM', K_hungry, c)
    redis.call('ZREM', K_hungryuntil, c)
  end
end
local function be_hungry(c, now, ms)
  redis.call('ZADD', K_hungry, 'NX', now, c)
  redis.call('ZADD', K_hungryuntil, now + ms, c)
end
local function not_hungry(c)
  redis.call('ZREM', K_hungry, c)
  redis.call('ZREM', K_hungryuntil, c)
end
-- Drops URL u's lease; returns its host.
local function unlease(u)
  local h = redis.call('HGET', K_lhosts, u)
  redis.call('ZREM', K_leases, u)
  redis.call('HDEL', K_owners, u)
  redis.call('HDEL', K_lhosts, u)
  return h or ''
end
-- Gives host h back: nobody may take it for `cooldown` ms. now_ms() and
-- Redis's key expiry round the clock down to whole milliseconds, so the
-- cooldown's end is one millisecond later: it never ends early.
local function give_back(h, owner, now, cooldown)
  redis.call('HDEL', K_hostowners, h)
  redis.call('ZREM', K_hostleases, h)
  redis.call('SREM', prefix .. 'held:' .. owner, h)
  if cooldown > 0 then
    redis.call('SET', prefix .. 'cool:' .. h, now + cooldown + 1, 'PX', cooldown + 1)
  end
  if redis.call('LLEN', qkey(h)) > 0 then make_ready(h, now) end
end
)lua";

// PUSH: test-and-set of each URL's k bits, then the enqueue of the new ones
// into their hosts' queues.
//   ARGV[1] prefix, ARGV[2] n, ARGV[3] k, then per URL 3 + k values: the
//   URL, its host ('' without host partitions), its shard, its k bit
//   offsets in that shard's key NAME:bits:<shard> (decimal). The blocked
//   layout puts all k bits of a URL in one 512-bit block, so one shard; a
//   classic-layout URL whose probes span shards sends '*' as its shard and
//   k values "SHARD OFFSET" instead.
//   Reply: a string of n characters, '1' for a URL enqueued, '0' for one
//   whose bits were all set already (seen, or repeated earlier in the batch).
// BITFIELD SET u1 returns each bit's old value: a URL is new iff one was 0.
// Probes are gathered per shard into one BITFIELD call of up to 1000 probes
// (Lua's unpack limit is ~8000 values), in URL order, so a URL repeated in
// the batch finds the first copy's bits set. Where the time goes (Redis
// 7.0): each ARGV value is a Lua string made when the script starts, each
// redis.call costs ~5 us beyond its arguments, and a Lua number passed to
// a command is formatted with "%.17g". So the offsets come as ARGV strings
// handed to BITFIELD as they are, one table per shard is reused from call
// to call ('SET' 'u1' '1' written once, then only the offsets), and the new
// URLs go out in one RPUSH per host (chunks of 1000).
constexpr char kPush[] = R"lua(
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
)lua";

// POP: acks done URLs, requeues expired URL leases, gives back idle hosts,
// renews the client's host leases, then leases up to `want` URLs: from the
// shared queue, from hosts the client holds, and only if those fall short,
// from hosts it takes (expired host leases first, then ready hosts) while
// it holds fewer than its fair share of the hosts (below) and max_hosts.
//   ARGV[1] prefix, [2] client id, [3] URL lease ms, [4] host lease ms,
//   [5] cooldown ms, [6] want, [7] max hosts, [8] how long a wait for a
//   host counts without a new try (ms), [9] hosts with a holder or URLs in
//   the frontier's other queue partitions, [10] and [11] hosts this client
//   holds in the partitions before and after this one (all three 0 on a
//   frontier of one partition), [12] d then d URLs done,
//   then i then i hosts the client has no URL of any more (given back if
//   their queue is empty).
//   Reply: {URLs, their hosts, queued URLs after, URL leases after,
//   journal records pending (a cluster's), a claimed record, the client's
//   surplus hosts (below: it reports idle those it has no URL of), hosts
//   with a holder or URLs after, hosts this client holds after, the count
//   of enqueue steps (NAME:moves, ENQUEUE below)}
// Deadlines are in the server's clock (TIME), so clients' clocks may differ.
// Clients that want a host and find none to take wait in NAME:hungry
// (client -> since when, for [8] ms after each try: NAME:hungryuntil); a
// host goes to the one waiting longest, so an idle client polling now and
// then is not outrun by a busy one that pops all the time.
// A cluster's push journal (JOURNAL below) whose client is past its
// deadline is claimed, one per pop: its deadline moves a URL lease time on
// (if this client dies too, another claims it then) and the reply's last
// element is {its client, the time now, then the record's items: trip id,
// time written, element, host, ...}; the claimer finishes that trip
// (cluster_replay.cc). Otherwise the last element is {}.
constexpr char kPop[] = R"lua(
local now = now_ms()
local owner = ARGV[2]
local url_lease, host_lease = tonumber(ARGV[3]), tonumber(ARGV[4])
local cooldown, want, max_hosts = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local K_held = prefix .. 'held:' .. owner
local hungry_ms = tonumber(ARGV[8])
local hosts_elsewhere = tonumber(ARGV[9])
local held_before, held_after = tonumber(ARGV[10]), tonumber(ARGV[11])
local p = 13
for i = p, p + tonumber(ARGV[12]) - 1 do
  if redis.call('HGET', K_owners, ARGV[i]) == owner then unlease(ARGV[i]) end
end
p = p + tonumber(ARGV[12])
local expired = redis.call('ZRANGEBYSCORE', K_leases, '-inf', now, 'LIMIT', 0, 100)
for i = #expired, 1, -1 do  -- to their hosts' heads, oldest deadline first
  enqueue(unlease(expired[i]), expired, i, i, true, now)
end
-- The fair share: the live clients are those whose last pop is less than a
-- host lease ago (NAME:clients); a client holds at most ceil(hosts with a
-- holder or URLs / live clients) hosts, or one, counted over the whole
-- frontier (the other partitions' figures come from the client). Its hosts
-- beyond the share (the last in partition order, then sorted order) are
-- surplus: no more URLs from them, and each goes back once the client
-- reports it idle, queue or not (and the client takes no host in that
-- pop, so another live client may take it first).
local K_clients = prefix .. 'clients'
redis.call('ZADD', K_clients, now + host_lease, owner)
redis.call('ZREMRANGEBYSCORE', K_clients, '-inf', now)
local function host_count()
  return redis.call('HLEN', K_hostowners) + redis.call('LLEN', K_ready) +
         redis.call('ZCARD', K_cooling)
end
local share = math.max(1, math.ceil((host_count() + hosts_elsewhere) /
                                    redis.call('ZCARD', K_clients)))
local held_now = {}
for _, h in ipairs(redis.call('SMEMBERS', K_held)) do
  if redis.call('HGET', K_hostowners, h) == owner then
    held_now[#held_now + 1] = h
  else
    redis.call('SREM', K_held, h)
  end
end
table.sort(held_now)
local surplus = {}
for i = math.max(0, share - held_before) + 1, #held_now do surplus[held_now[i]] = true end
local handed_over = false  -- a surplus host given back: take none this time
for i = p + 1, p + tonumber(ARGV[p]) do
  local h = ARGV[i]
  if redis.call('HGET', K_hostowners, h) == owner and
     (surplus[h] or redis.call('LLEN', qkey(h)) == 0) then
    give_back(h, owner, now, cooldown)
    handed_over = handed_over or surplus[h] ~= nil
  end
end
local mine, surplus_held = {}, {}
for _, h in ipairs(held_now) do
  if redis.call('HGET', K_hostowners, h) == owner then
    redis.call('ZADD', K_hostleases, now + host_lease, h)
    if surplus[h] then
      surplus_held[#surplus_held + 1] = h
    else
      mine[#mine + 1] = h
    end
  end
end
local out, out_hosts = {}, {}
local function take(h) return dequeue(h, want - #out, out, out_hosts) end
if want > 0 then
  take('')
  for _, h in ipairs(mine) do
    if #out >= want then break end
    take(h)
  end
  for _, h in ipairs(redis.call('ZRANGEBYSCORE', K_cooling, '-inf', now)) do
    redis.call('ZREM', K_cooling, h)
    redis.call('RPUSH', K_ready, h)
  end
  local held = held_before + #mine + #surplus_held + held_after
  local wants_host = #out < want and held < max_hosts and held < share and not handed_over
  local first = wants_host and first_hungry(now) or nil
  if first and first ~= owner then  -- another waits longer: its turn first
    be_hungry(owner, now, hungry_ms)
    wants_host = false
  end
  while wants_host and #out < want and held < max_hosts and held < share do
    local h = redis.call('ZRANGEBYSCORE', K_hostleases, '-inf', now, 'LIMIT', 0, 1)[1]
    if h then
      local old = redis.call('HGET', K_hostowners, h)
      if old then redis.call('SREM', prefix .. 'held:' .. old, h) end
    else
      h = redis.call('LPOP', K_ready)
      if not h then
        be_hungry(owner, now, hungry_ms)
        break
      end
    end
    not_hungry(owner)
    redis.call('HSET', K_hostowners, h, owner)
    redis.call('ZADD', K_hostleases, now + host_lease, h)
    redis.call('SADD', K_held, h)
    held = held + 1
    if take(h) == 0 then give_back(h, owner, now, 0) end
  end
  -- The leases, in a few calls of many pairs each (a call costs ~5 us).
  local deadline = tostring(now + url_lease)
  local scored, owned, hosted = {}, {}, {}
  for i, u in ipairs(out) do
    scored[2 * i - 1], scored[2 * i] = deadline, u
    owned[2 * i - 1], owned[2 * i] = u, owner
    if out_hosts[i] ~= '' then
      hosted[#hosted + 1] = u
      hosted[#hosted + 1] = out_hosts[i]
    end
  end
  for first = 1, #scored, 2000 do
    local last = math.min(#scored, first + 1999)
    redis.call('ZADD', K_leases, unpack(scored, first, last))
    redis.call('HSET', K_owners, unpack(owned, first, last))
  end
  for first = 1, #hosted, 2000 do
    redis.call('HSET', K_lhosts, unpack(hosted, first, math.min(#hosted, first + 1999)))
  end
end
local K_journals, claimed = prefix .. 'journals', {}
local dead = redis.call('ZRANGEBYSCORE', K_journals, '-inf', now, 'LIMIT', 0, 1)[1]
if dead then
  local record = redis.call('LRANGE', prefix .. 'journal:' .. dead, 0, -1)
  if #record >= 2 then
    redis.call('ZADD', K_journals, now + url_lease, dead)
    claimed = {dead, tostring(now)}
    for i = 1, #record do claimed[i + 2] = record[i] end
  else
    redis.call('ZREM', K_journals, dead)
  end
end
return {out, out_hosts, tonumber(redis.call('GET', K_queued) or '0'), redis.call('ZCARD', K_leases),
        redis.call('ZCARD', K_journals), claimed, surplus_held, host_count(),
        redis.call('SCARD', K_held), tonumber(redis.call('GET', prefix .. 'moves') or '0')}
)lua";

// RELEASE: gives leased URLs back to their hosts' queues, at the tail
// (Defer) or the head in the given order (a closing client's unreturned
// pops); and, when closing, every host the client holds.
//   ARGV[1] prefix, [2] client id, [3] 'tail' or 'head', [4] cooldown ms,
//   [5] '1' to give back all the client's hosts, [6..] URLs
//   Reply: how many URLs were released (a URL whose lease is no longer this
//   client's is skipped: it expired and went to another client).
constexpr char kRelease[] = R"lua(
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
)lua";

// RENEW: extends this client's URL leases (a fetch that outlives lease_time
// keeps its URL; the heartbeat sends them every lease_time / 3).
//   ARGV[1] prefix, [2] client id, [3] URL lease ms, [4..] queue elements
//   Reply: how many leases were renewed (a lease no longer this client's,
//   because it expired and went to another, is left alone).
constexpr char kRenew[] = R"lua(
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
)lua";

// TAKE PAGE: one page of the fleet's budget (RedisSieve::TakePage).
//   ARGV[1] prefix, [2] the limit
//   Reply: 1 if NAME:pages was below the limit (and is now one more), else 0.
constexpr char kTakePage[] = R"lua(
local key = ARGV[1] .. 'pages'
if tonumber(redis.call('GET', key) or '0') >= tonumber(ARGV[2]) then return 0 end
redis.call('INCR', key)
return 1
)lua";

// JOURNAL (cluster, step 0 of a push): the trip's candidate URLs, written
// in {NAME} before any filter bit is set, so that a client dying between
// FILTER and ENQUEUE leaves them where a survivor finds them.
//   ARGV[1] prefix, [2] client id, [3] the trip's id, [4] how long the
//   record waits for its client (ms: the URL lease time), then per URL its
//   queue element and its host ('' without host partitions)
//   Reply: 1.
// NAME:journal:<client> is a list: the trip's id, the server time it was
// written (ms), then element, host, element, host, ... (one record per
// client: a client's trips run one at a time, the next overwrites it).
// NAME:journals scores each client with a record by the time after which
// it counts as dead (a survivor's POP then claims the record: below).
constexpr char kJournal[] = R"lua(
local key = prefix .. 'journal:' .. ARGV[2]
local now = now_ms()
redis.call('DEL', key)
redis.call('RPUSH', key, ARGV[3], now)
for first = 5, #ARGV, 1000 do
  redis.call('RPUSH', key, unpack(ARGV, first, math.min(#ARGV, first + 999)))
end
redis.call('ZADD', prefix .. 'journals', now + tonumber(ARGV[4]), ARGV[2])
return 1
)lua";

// FILTER (cluster, step 1 of a push): test-and-set of the k bits of each
// URL in one filter shard, as PUSH's first half.
//   KEYS[1] the shard {NAME:bits:I}, KEYS[2] the trip's client's record
//   there ({NAME:bits:I}:trip:<client>)
//   ARGV[1] the trip's id, [2] k, [3] mode, [4] how long the record is
//   kept (ms), then k offsets per URL (URL order, so a URL repeated in the
//   trip finds the first copy's bits set)
//   Reply: one character per URL, '1' new, '0' seen. A trip id equal to the
//   record's (a resend after a lost reply, or a survivor replaying a dead
//   client's journal) returns the first run's answer: the bits are not
//   looked at again.
// Modes: 'run' (the client's own trip); 'replay' (a survivor finishing a
// dead client's trip: a record of a later trip means that client finished
// this one itself, and the reply is '' so the survivor stops); 'all'
// (replay of a journal older than the record's life: a record missing now
// may have expired, so every URL is answered new: duplicates, not losses).
// The record holds "<trip id> <reply>" for ARGV[4] ms (a dead client's go).
constexpr char kFilter[] = R"lua(
local last = redis.call('GET', KEYS[2])
local trip, mode = tonumber(ARGV[1]), ARGV[3]
if last then
  local space = string.find(last, ' ', 1, true)
  local last_trip = tonumber(string.sub(last, 1, space - 1))
  if last_trip == trip then return string.sub(last, space + 1) end
  if last_trip > trip and mode ~= 'run' then return '' end
end
local k = tonumber(ARGV[2])
local n = (#ARGV - 4) / k
local fresh, args, owner, count = {}, {KEYS[1]}, {}, 0
local function flush()
  local old = redis.call('BITFIELD', unpack(args, 1, 4 * count + 1))
  for j = 1, count do
    if old[j] == 0 then fresh[owner[j]] = true end
  end
  count = 0
end
for i = 1, n do
  for q = 5 + (i - 1) * k, 4 + i * k do
    if count == 1000 then flush() end
    count = count + 1
    local b = 4 * count - 2
    args[b], args[b + 1], args[b + 2], args[b + 3] = 'SET', 'u1', ARGV[q], '1'
    owner[count] = i
  end
end
if count > 0 then flush() end
local out = {}
for i = 1, n do out[i] = (fresh[i] or mode == 'all') and '1' or '0' end
local flags = table.concat(out)
redis.call('SET', KEYS[2], ARGV[1] .. ' ' .. flags, 'PX', tonumber(ARGV[4]))
return flags
)lua";

// ENQUEUE (cluster, step 2 of a push): the journaled URLs FILTER found new,
// into their hosts' queues, as PUSH's second half; the journal record goes
// in the same script, so a trip is either pending (its record there) or
// enqueued (record gone), never both.
//   ARGV[1] prefix, [2] client id, [3] the trip's id, [4] FILTER's answer
//   for each journaled URL, in journal order ('1' new)
//   Reply: URLs enqueued; 0 if the client's record is not this trip's (a
//   resend after a lost reply, or a survivor got there first: the trip was
//   enqueued already).
// On a frontier of several queue partitions, FILTER's answer has '1' only
// for the URLs of partition 0's hosts (this slot's): the others went to
// their partitions by ENQUEUE_PART before, and this step, which ends the
// trip, counts it in NAME:moves (IsFinished's scan: redis_sieve.cc).
constexpr char kEnqueue[] = R"lua(
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
)lua";

// ENQUEUE_PART (cluster, step 2 of a push on a frontier of several queue
// partitions, before ENQUEUE): the trip's new URLs whose hosts belong to
// one partition other than 0, into their hosts' queues there. The
// partition remembers the client's last trip enqueued there
// (<prefix>etrip:<client>, for [4] ms), so a resend, or a survivor's replay
// of a journal whose client got this far, does not queue them twice.
//   ARGV[1] the partition's prefix "{NAME:qI}:", [2] client id, [3] the
//   trip's id, [4] how long the record is kept (ms), then per URL its
//   queue element and its host
//   Reply: URLs enqueued; 0 if the record is of this trip or a later one.
constexpr char kEnqueuePart[] = R"lua(
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
)lua";

}  // namespace

std::string JournalScript() { return std::string(kCommon) + kJournal; }
std::string FilterScript() { return kFilter; }
std::string EnqueueScript() { return std::string(kCommon) + kEnqueue; }
std::string EnqueuePartScript() { return std::string(kCommon) + kEnqueuePart; }
std::string PushScript() { return std::string(kCommon) + kPush; }
std::string PopScript() { return std::string(kCommon) + kPop; }
std::string ReleaseScript() { return std::string(kCommon) + kRelease; }
std::string RenewScript() { return std::string(kCommon) + kRenew; }
std::string TakePageScript() { return kTakePage; }

}  // namespace sieve::internal
