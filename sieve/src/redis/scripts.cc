#include "scripts.h"

namespace sieve::internal {

// PUSH: test-and-set of each URL's k bits, then the enqueue of the new ones.
//   KEYS[1]  the queue (list)
//   ARGV[1]  n, the batch's URL count; ARGV[2..n+1] the URLs, in order
//   then chunks, each of at most 1000 probes in one shard:
//     shard key, c (probes), r (runs), r pairs (URL index 1..n, run length),
//     then 4c ready-made BITFIELD arguments ("SET" "u1" offset "1") whose
//     runs belong to the URLs in that order.
//   Reply: a string of n characters, '1' for a URL enqueued, '0' for one
//   whose bits were all set already (seen, or repeated earlier in the batch).
// Bits are set with BITFIELD SET u1, which returns each bit's old value: a
// URL is new iff one of its old bits was 0. Chunks come in URL order per
// shard, so a URL repeated in the batch finds the first copy's bits set.
// The BITFIELD arguments are passed through with unpack(ARGV, i, j), never
// copied into a Lua table: the script's cost is mostly Redis's own BITFIELD
// work (Lua's unpack limit, ~8000 values, is why chunks stop at 1000 probes).
const char* const kPushScript = R"lua(
local n = tonumber(ARGV[1])
local new = {}
local p = n + 2
while p <= #ARGV do
  local key = ARGV[p]
  local c = tonumber(ARGV[p + 1])
  local r = tonumber(ARGV[p + 2])
  local runs = p + 3
  local first = runs + 2 * r
  local old = redis.call('BITFIELD', key, unpack(ARGV, first, first + 4 * c - 1))
  local j = 1
  for q = runs, first - 1, 2 do
    local idx = tonumber(ARGV[q])
    for t = j, j + tonumber(ARGV[q + 1]) - 1 do
      if old[t] == 0 then new[idx] = true end
    end
    j = j + tonumber(ARGV[q + 1])
  end
  p = first + 4 * c
end
local out, urls = {}, {}
for i = 1, n do
  if new[i] then
    out[i] = '1'
    urls[#urls + 1] = ARGV[i + 1]
    if #urls == 1000 then
      redis.call('RPUSH', KEYS[1], unpack(urls))
      urls = {}
    end
  else
    out[i] = '0'
  end
end
if #urls > 0 then redis.call('RPUSH', KEYS[1], unpack(urls)) end
return table.concat(out)
)lua";

// POP: acks done URLs, then leases up to `want` URLs: expired leases first
// (their holder died or is too slow), then the queue's head.
//   KEYS[1] queue, KEYS[2] leases (zset: URL -> deadline ms), KEYS[3] owners
//   (hash: URL -> client id)
//   ARGV[1] client id, ARGV[2] lease ms, ARGV[3] want, ARGV[4] d, then d URLs
//   this client is done with (acked only if it still holds their lease).
//   Reply: {leased URLs, queue length after, lease count after}
// The deadline is in the server's clock (TIME), so clients' clocks may differ.
const char* const kPopScript = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local owner = ARGV[1]
local d = tonumber(ARGV[4])
for i = 5, 4 + d do
  local u = ARGV[i]
  if redis.call('HGET', KEYS[3], u) == owner then
    redis.call('ZREM', KEYS[2], u)
    redis.call('HDEL', KEYS[3], u)
  end
end
local want = tonumber(ARGV[3])
local out = {}
if want > 0 then
  local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, want)
  for _, u in ipairs(expired) do out[#out + 1] = u end
  if #out < want then
    local got = redis.call('LPOP', KEYS[1], want - #out)
    if got then
      for _, u in ipairs(got) do out[#out + 1] = u end
    end
  end
  local deadline = now + tonumber(ARGV[2])
  for _, u in ipairs(out) do
    redis.call('ZADD', KEYS[2], deadline, u)
    redis.call('HSET', KEYS[3], u, owner)
  end
end
return {out, redis.call('LLEN', KEYS[1]), redis.call('ZCARD', KEYS[2])}
)lua";

// RELEASE: gives leased URLs back to the queue, at its tail (Defer) or its
// head in the given order (a closing client's unreturned pops).
//   KEYS as POP; ARGV[1] client id, ARGV[2] 'tail' or 'head', ARGV[3..] URLs
//   Reply: how many were released (a URL whose lease is no longer this
//   client's is skipped: it expired and went to another client).
const char* const kReleaseScript = R"lua(
local owner = ARGV[1]
local released = 0
local first, last, step = 3, #ARGV, 1
if ARGV[2] == 'head' then first, last, step = #ARGV, 3, -1 end
for i = first, last, step do
  local u = ARGV[i]
  if redis.call('HGET', KEYS[3], u) == owner then
    redis.call('ZREM', KEYS[2], u)
    redis.call('HDEL', KEYS[3], u)
    if ARGV[2] == 'head' then
      redis.call('LPUSH', KEYS[1], u)
    else
      redis.call('RPUSH', KEYS[1], u)
    end
    released = released + 1
  end
end
return released
)lua";

}  // namespace sieve::internal
