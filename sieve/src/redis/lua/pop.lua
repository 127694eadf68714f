-- POP: acks done URLs, requeues expired URL leases, gives back idle hosts,
-- renews the client's host leases, then leases up to `want` URLs: from the
-- shared queue, from hosts the client holds, and only if those fall short,
-- from hosts it takes (expired host leases first, then ready hosts) while
-- it holds fewer than its fair share of the hosts (below) and max_hosts.
--   ARGV[1] prefix, [2] client id, [3] URL lease ms, [4] host lease ms,
--   [5] cooldown ms, [6] want, [7] max hosts, [8] how long a wait for a
--   host counts without a new try (ms), [9] hosts with a holder or URLs in
--   the frontier's other queue partitions, [10] and [11] hosts this client
--   holds in the partitions before and after this one (all three 0 on a
--   frontier of one partition), [12] d then d URLs done,
--   then i then i hosts the client has no URL of any more (given back if
--   their queue is empty), then the floor: '' or a priority below which
--   this pop takes no URL (a higher lane waits in another partition).
--   Reply: {URLs, their hosts, queued URLs after, URL leases after,
--   journal records pending (a cluster's), a claimed record, the client's
--   surplus hosts (below: it reports idle those it has no URL of), hosts
--   with a holder or URLs after, hosts this client holds after, the count
--   of enqueue steps (NAME:moves, ENQUEUE below), the URLs' priorities,
--   the best lane this client could pop here next ('' if none: its held
--   hosts', the shared queue's, and the ready hosts' if it may take one)}
-- The URLs come highest priority first, FIFO within a priority (per host
-- lane; across hosts in the order their lanes were taken).
-- Deadlines are in the server's clock (TIME), so clients' clocks may differ.
-- Clients that want a host and find none to take wait in NAME:hungry
-- (client -> since when, for [8] ms after each try: NAME:hungryuntil); a
-- host goes to the one waiting longest, so an idle client polling now and
-- then is not outrun by a busy one that pops all the time.
-- A cluster's push journal (JOURNAL below) whose client is past its
-- deadline is claimed, one per pop: its deadline moves a URL lease time on
-- (if this client dies too, another claims it then) and the reply's last
-- element is {its client, the time now, then the record's items: trip id,
-- time written, element, host, ...}; the claimer finishes that trip
-- (cluster_replay.cc). Otherwise the last element is {}.
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
  return redis.call('HLEN', K_hostowners) + ready_count() + redis.call('ZCARD', K_cooling)
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
local floor = tonumber(ARGV[p + tonumber(ARGV[p]) + 1]) or -math.huge
for i = p + 1, p + tonumber(ARGV[p]) do
  local h = ARGV[i]
  if redis.call('HGET', K_hostowners, h) == owner and
     (surplus[h] or not best_lane(h)) then
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
local out = {urls = {}, hosts = {}, lanes = {}}
local function short() return #out.urls < want end
if want > 0 then
  for _, lane in ipairs(lanes_of('')) do  -- the shared queue, highest lane first
    if not short() or lane < floor then break end
    dequeue('', lane, want - #out.urls, out)
  end
  for _, h in ipairs(redis.call('ZRANGEBYSCORE', K_cooling, '-inf', now)) do
    redis.call('ZREM', K_cooling, h)
    local best = best_lane(h)
    if best then into_ready(h, best) end
  end
  local held = held_before + #mine + #surplus_held + held_after
  local wants_host = short() and held < max_hosts and held < share and not handed_over
  local first = wants_host and first_hungry(now) or nil
  if first and first ~= owner then  -- another waits longer: its turn first
    be_hungry(owner, now, hungry_ms)
    wants_host = false
  end
  -- Lanes first: the held hosts' lanes, highest first (within a lane, hosts
  -- in held order), and a host is taken when its best lane is above the
  -- next held lane (an expired host lease first, as its holder died; then
  -- the ready host of the best lane), so what this pop leases is what one
  -- queue of all these hosts' lanes would give.
  local lanes, seq = {}, 0
  local function by_lane(a, b)
    if a.lane ~= b.lane then return a.lane > b.lane end
    return a.seq < b.seq
  end
  local function add_lanes(h)
    for _, lane in ipairs(lanes_of(h)) do
      seq = seq + 1
      lanes[#lanes + 1] = {lane = lane, host = h, seq = seq}
    end
    table.sort(lanes, by_lane)
  end
  for _, h in ipairs(mine) do add_lanes(h) end
  while short() do
    local next_lane = lanes[1] and lanes[1].lane
    if next_lane and next_lane < floor then next_lane = nil end
    local h = nil
    if wants_host and held < max_hosts and held < share then
      local expired_host = redis.call('ZRANGEBYSCORE', K_hostleases, '-inf', now, 'LIMIT', 0, 1)[1]
      local lane
      if expired_host then
        -- an empty one is taken (and given back) once no held lane is left
        lane = best_lane(expired_host) or -math.huge
      else
        lane = best_ready_lane()
      end
      if lane and lane >= floor and (not next_lane or lane > next_lane) then
        if expired_host then
          h = expired_host
          local old = redis.call('HGET', K_hostowners, h)
          if old then redis.call('SREM', prefix .. 'held:' .. old, h) end
        else
          h = pop_ready(lane)
        end
      elseif not lane and not next_lane then
        be_hungry(owner, now, hungry_ms)
        wants_host = false
      end
    end
    if h then
      not_hungry(owner)
      redis.call('HSET', K_hostowners, h, owner)
      redis.call('ZADD', K_hostleases, now + host_lease, h)
      redis.call('SADD', K_held, h)
      held = held + 1
      if best_lane(h) then
        add_lanes(h)
        mine[#mine + 1] = h
      else
        give_back(h, owner, now, 0)
      end
    elseif next_lane then
      local item = table.remove(lanes, 1)
      dequeue(item.host, item.lane, want - #out.urls, out)
    else
      break
    end
  end
  -- One order for the batch: highest lane first, in take order within a
  -- lane (a host taken late may add a lane above one taken before).
  local order = {}
  for i = 1, #out.urls do order[i] = i end
  table.sort(order, function(a, b)
    if out.lanes[a] ~= out.lanes[b] then return out.lanes[a] > out.lanes[b] end
    return a < b
  end)
  local sorted = {urls = {}, hosts = {}, lanes = {}}
  for i, from in ipairs(order) do
    sorted.urls[i], sorted.hosts[i], sorted.lanes[i] = out.urls[from], out.hosts[from], out.lanes[from]
  end
  out = sorted
  -- The leases, in a few calls of many pairs each (a call costs ~5 us).
  local deadline = tostring(now + url_lease)
  local scored, owned, hosted = {}, {}, {}
  for i, u in ipairs(out.urls) do
    scored[2 * i - 1], scored[2 * i] = deadline, u
    owned[2 * i - 1], owned[2 * i] = u, owner
    local q = queue_id(out.hosts[i], out.lanes[i])
    if q ~= '' then
      hosted[#hosted + 1] = u
      hosted[#hosted + 1] = q
    end
  end
  for from = 1, #scored, 2000 do
    local last = math.min(#scored, from + 1999)
    redis.call('ZADD', K_leases, unpack(scored, from, last))
    redis.call('HSET', K_owners, unpack(owned, from, last))
  end
  for from = 1, #hosted, 2000 do
    redis.call('HSET', K_lhosts, unpack(hosted, from, math.min(#hosted, from + 1999)))
  end
end
-- The best lane this client could pop here now: a client asking several
-- partitions asks the best first (round_trips.cc).
local best = best_lane('')
local function consider(lane)
  if lane and (not best or lane > best) then best = lane end
end
for _, h in ipairs(mine) do consider(best_lane(h)) end
local holds = held_before + redis.call('SCARD', K_held) + held_after
if holds < max_hosts and holds < share then consider(best_ready_lane()) end
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
return {out.urls, out.hosts, tonumber(redis.call('GET', K_queued) or '0'), redis.call('ZCARD', K_leases),
        redis.call('ZCARD', K_journals), claimed, surplus_held, host_count(),
        redis.call('SCARD', K_held), tonumber(redis.call('GET', prefix .. 'moves') or '0'),
        out.lanes, best and tostring(best) or ''}
