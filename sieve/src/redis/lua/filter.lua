-- FILTER (cluster, step 1 of a push): test-and-set of the k bits of each
-- URL in one filter shard, as PUSH's first half.
--   KEYS[1] the shard {NAME:bits:I}, KEYS[2] the trip's client's record
--   there ({NAME:bits:I}:trip:<client>)
--   ARGV[1] the trip's id, [2] k, [3] mode, [4] how long the record is
--   kept (ms), then k offsets per URL (URL order, so a URL repeated in the
--   trip finds the first copy's bits set)
--   Reply: one character per URL, '1' new, '0' seen. A trip id equal to the
--   record's (a resend after a lost reply, or a survivor replaying a dead
--   client's journal) returns the first run's answer: the bits are not
--   looked at again.
-- Modes: 'run' (the client's own trip); 'replay' (a survivor finishing a
-- dead client's trip: a record of a later trip means that client finished
-- this one itself, and the reply is '' so the survivor stops); 'all'
-- (replay of a journal older than the record's life: a record missing now
-- may have expired, so every URL is answered new: duplicates, not losses).
-- The record holds "<trip id> <reply>" for ARGV[4] ms (a dead client's go).
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
