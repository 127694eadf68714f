-- The prelude, put before every script but FILTER and TAKE PAGE (scripts.cc).
-- ARGV[1] is always the key prefix "NAME:" ("{NAME}:" on a cluster: one
-- slot); keys are built from it, and KEYS[1] is NAME:meta, a key of that
-- slot, so a cluster routes the call.
--
-- A host h's URLs wait in one list per priority lane: NAME:q:<h> for
-- priority 0 (the only key of a frontier written before lanes: read and
-- written as then), NAME:q@<P>:<h> for priority P ~= 0; the sorted set
-- NAME:lanes:<h> holds h's non-empty lanes other than 0 (member and score
-- P). h = '' is the shared queue of a frontier without host partitions (no
-- host_key): nobody leases it. A queue id names one host's lane: h for
-- lane 0, h NUL P otherwise; pushes, journals and NAME:lhosts carry it, so
-- a URL given back or expired returns to its own lane.
-- A host with queued URLs is in exactly one of:
--   leased   NAME:hostowners (h -> client) and NAME:hostleases (h -> deadline)
--            and the holder's set NAME:held:<client>;
--   ready    the ready list of its best (highest) lane: NAME:ready for lane
--            0, NAME:ready@<P> otherwise (takeable now, FIFO; NAME:readylanes
--            holds the P of the non-empty ones, NAME:readyat h -> P for their
--            hosts), or NAME:cooling (h -> the time it may be taken: it was
--            given back less than a cooldown ago).
-- A host with an empty queue and no holder is in none. NAME:cool:<h> (PX
-- expiry) remembers a give-back's cooldown end for a host whose queue was
-- empty then. NAME:queued counts the URLs of all host queues.
-- URL leases: NAME:leases (URL -> deadline), NAME:owners (URL -> client),
-- NAME:lhosts (URL -> host, so an expired lease goes back to its host; none
-- for the shared queue '').
local prefix = ARGV[1]
local K_queued, K_ready, K_cooling = prefix .. 'queued', prefix .. 'ready', prefix .. 'cooling'
local K_hostowners, K_hostleases = prefix .. 'hostowners', prefix .. 'hostleases'
local K_leases, K_owners, K_lhosts = prefix .. 'leases', prefix .. 'owners', prefix .. 'lhosts'
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- Lanes: a queue id's host and lane, and back; a lane's list; h's lanes.
local function split_queue(q)
  local nul = string.find(q, '\0', 1, true)
  if not nul then return q, 0 end
  return string.sub(q, 1, nul - 1), tonumber(string.sub(q, nul + 1))
end
local function queue_id(h, lane)
  if lane == 0 then return h end
  return h .. '\0' .. lane
end
local function lane_key(h, lane)
  if lane == 0 then return prefix .. 'q:' .. h end
  return prefix .. 'q@' .. lane .. ':' .. h
end
local function lanes_key(h) return prefix .. 'lanes:' .. h end
-- h's non-empty lanes, highest first.
local function lanes_of(h)
  local out = {}
  for _, lane in ipairs(redis.call('ZREVRANGEBYSCORE', lanes_key(h), '+inf', '(0')) do
    out[#out + 1] = tonumber(lane)
  end
  if redis.call('LLEN', lane_key(h, 0)) > 0 then out[#out + 1] = 0 end
  for _, lane in ipairs(redis.call('ZREVRANGEBYSCORE', lanes_key(h), '(0', '-inf')) do
    out[#out + 1] = tonumber(lane)
  end
  return out
end
-- h's highest non-empty lane; nil if h has no URL queued.
local function best_lane(h)
  local top = redis.call('ZREVRANGE', lanes_key(h), 0, 0)[1]
  top = top and tonumber(top)
  if (not top or top < 0) and redis.call('LLEN', lane_key(h, 0)) > 0 then return 0 end
  return top
end
-- The ready lists, one per best lane (NAME:ready is lane 0's).
local K_readylanes, K_readyat = prefix .. 'readylanes', prefix .. 'readyat'
local function ready_key(lane)
  if lane == 0 then return K_ready end
  return prefix .. 'ready@' .. lane
end
local function into_ready(h, lane)
  redis.call('RPUSH', ready_key(lane), h)
  if lane ~= 0 then
    redis.call('ZADD', K_readylanes, lane, lane)
    redis.call('HSET', K_readyat, h, lane)
  end
end
local function ready_list_left(lane)
  if lane ~= 0 and redis.call('LLEN', ready_key(lane)) == 0 then
    redis.call('ZREM', K_readylanes, lane)
  end
end
-- The best lane of the ready hosts (nil if none) and its first host, out.
local function best_ready_lane()
  local top = redis.call('ZREVRANGE', K_readylanes, 0, 0)[1]
  top = top and tonumber(top)
  if (not top or top < 0) and redis.call('LLEN', K_ready) > 0 then return 0 end
  return top
end
local function pop_ready(lane)
  local h = redis.call('LPOP', ready_key(lane))
  if lane ~= 0 then redis.call('HDEL', K_readyat, h) end
  ready_list_left(lane)
  return h
end
-- Hosts in the ready lists.
local function ready_count()
  local n = redis.call('LLEN', K_ready)
  for _, lane in ipairs(redis.call('ZRANGE', K_readylanes, 0, -1)) do
    n = n + redis.call('LLEN', ready_key(tonumber(lane)))
  end
  return n
end
-- h just got URLs and has no holder: takeable now, or when its cooldown ends.
local function make_ready(h, now)
  if h == '' or redis.call('HEXISTS', K_hostowners, h) == 1 then return end
  local cool = tonumber(redis.call('GET', prefix .. 'cool:' .. h) or '0')
  if cool > now then
    redis.call('ZADD', K_cooling, cool, h)
  else
    local best = best_lane(h)
    if best then into_ready(h, best) end
  end
end
-- h's lane `lane` just got its first URLs: h becomes ready if it had no
-- URL; a ready host whose best lane this is now moves to its ready list.
local function lane_opened(h, lane, now)
  if lane ~= 0 then redis.call('ZADD', lanes_key(h), lane, lane) end
  if h == '' or redis.call('HEXISTS', K_hostowners, h) == 1 then return end
  local others = redis.call('ZCARD', lanes_key(h)) - (lane ~= 0 and 1 or 0)
  if lane ~= 0 and redis.call('LLEN', lane_key(h, 0)) > 0 then others = others + 1 end
  if others == 0 then return make_ready(h, now) end
  if redis.call('ZSCORE', K_cooling, h) or best_lane(h) ~= lane then return end
  local was = tonumber(redis.call('HGET', K_readyat, h) or '0')
  redis.call('LREM', ready_key(was), 1, h)
  if was ~= 0 then redis.call('HDEL', K_readyat, h) end
  ready_list_left(was)
  into_ready(h, lane)
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
-- Appends (or prepends) the lease elements els[first..last] to queue q's
-- lane (q: a queue id, above):
-- at the tail, into its last batch while that stays within MAX_BATCH, then
-- new batches; at the head, a batch each (els[last] ends up first). Makes
-- h ready if its queue was empty.
local function enqueue(q, els, first, last, head, now)
  local h, lane = split_queue(q)
  local key = lane_key(h, lane)
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
  if was_empty then lane_opened(h, lane, now) end
end
-- Takes up to `want` URLs from the head of h's lane `lane` as lease
-- elements, appended to out.urls (h to out.hosts, the lane to out.lanes);
-- returns how many. A head batch partly taken is written back unpacked: the
-- next pops of the host read it without UNPACK (one such batch per host
-- lane being taken from). An emptied lane leaves NAME:lanes:<h>.
local function dequeue(h, lane, want, out)
  local key, got = lane_key(h, lane), 0
  local into = out.urls
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
      out.hosts[#into] = h
      out.lanes[#into] = lane
    end
    if pos > #b then
      redis.call('LPOP', key)
    else
      redis.call('LSET', key, 0, string.sub(b, 1, start - 1) .. string.sub(b, pos))
    end
  end
  if got > 0 then redis.call('DECRBY', K_queued, got) end
  if lane ~= 0 and redis.call('EXISTS', key) == 0 then redis.call('ZREM', lanes_key(h), lane) end
  return got
end
-- New URLs gathered per queue id (host and lane; in the order they first
-- came), then enqueued in one RPUSH per host lane and 1000 URLs.
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
-- Drops URL u's lease; returns its queue id (host and lane).
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
  if best_lane(h) then make_ready(h, now) end
end
