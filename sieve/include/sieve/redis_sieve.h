// sieve/redis_sieve.h: RedisSieve, the Sieve whose filter and queue live in
// Redis, so that many crawl processes on many machines share one frontier:
// a URL pushed by any of them is enqueued once for the whole fleet, and each
// queued URL is handed to one of them.
//
//   sieve::RedisSieveOptions options;
//   options.host = "10.0.0.5";
//   options.name = "news-crawl";        // every key starts with "news-crawl:"
//   options.expected_count = 200'000'000;
//   absl::StatusOr<std::unique_ptr<sieve::RedisSieve>> sieve =
//       sieve::RedisSieve::Connect(options);
//   if (!sieve.ok()) return sieve.status();
//   (*sieve)->Push("https://example.com/");   // then use it as any sieve::Sieve
//
// In Redis (NAME is options.name; sieve/src/redis/scripts.cc has the rest):
//   NAME:meta      the filter's parameters, written once (SET NX); a client
//                  whose options give other parameters is refused. It ends
//                  with " queue=deflate" if the frontier's batches are
//                  packed (pack_queue_batches).
//   NAME:bits:I    the filter's bits, shard I (shard_bytes each, <= 512 MiB,
//                  the cap of one Redis string). A URL's bit positions are
//                  bloom's (bloom/hash.h, bloom/params.h): XXH3-128 with the
//                  fixed seed, the layout's probe derivation.
//   NAME:q:H       the FIFO of host H's URLs; NAME:q: (H empty) is the one
//                  shared FIFO when host_key is not set. NAME:queued counts
//                  the URLs of all of them. Each list element is a batch of
//                  URLs, at most 2 KiB (format v4, front-coded against the
//                  batch's first URL's directory: ~58-65 bytes of Redis
//                  memory per queued URL at bench/sieve's URL mix;
//                  sieve/redis_module/src/queue_batch.h), or on a frontier
//                  of packed batches up to 4 KiB deflated by the crawlsieve
//                  module (~34 bytes per queued URL at that mix;
//                  sieve/redis_module/src/batch_codec.h, docs/redis.md).
//   NAME:ready, NAME:cooling, NAME:hostowners, NAME:hostleases,
//   NAME:held:<client>  which hosts are leased to whom until when, and which
//                  wait for a holder (host_key set).
//   NAME:clients, NAME:hungry, NAME:hungryuntil  the live clients (each
//                  one's fair share of hosts) and those waiting for a host.
//   NAME:leases    popped URLs in flight (a sorted set scored by the lease's
//                  deadline, in Redis's clock), NAME:owners (URL -> the
//                  client holding it) and NAME:lhosts (URL -> its host).
//   NAME:pages     pages taken from the fleet's page budget (TakePage).
//   NAME:srv:<S>, NAME:srvnext:<S>  the fetch slots of server S held across
//                  the fleet (token -> lease end) and the time its next
//                  start may be (TakeServerSlot); NAME:srvline:<S> and
//                  NAME:srvlive:<S> the clients waiting for S, in line
//                  (client -> first refusal, and -> when its place lapses).
//                  All expire when unused.
//   NAME:journal:<client>, NAME:journals  a cluster's push trip in flight,
//                  per client (Redis Cluster, below).
// Every change is one Lua script run by the server (sieve/src/redis/
// scripts.cc): push = test-and-set of the k bits and the enqueue, atomically,
// for a whole batch of URLs (one round trip per batch; or the crawlsieve
// module's CRAWLSIEVE.PUSH, the same in C++, when the server has it loaded:
// sieve/redis_module/, use_push_module); pop = move URLs from
// the queues into the leases, atomically, so a URL popped is either still
// queued or leased to the client that got the reply.
//
// Redis Cluster (cluster_nodes set; `crawl --frontier redis-cluster://...`):
// the same keys with hash tags, so that each atomic step touches one slot:
//   {NAME}:meta, {NAME}:journal:<client>, {NAME}:journals, {NAME}:pages,
//   {NAME}:moves   in the one slot of tag {NAME};
//   {NAME}:q:H, {NAME:qI}:q:H, ... the host queues, host and URL leases,
//                  clients and counters (every key above but the filter's)
//                  in P queue partitions (queue_partitions, P in NAME:meta
//                  as " parts=P"): host H's in partition XXH3(H) mod P,
//                  whose keys start with "{NAME}:" for partition 0 and
//                  "{NAME:qI}:" for partition I > 0 (with a copy of
//                  NAME:meta), each tag its own slot, so the queue spreads
//                  over the primaries; the shared queue (no host_key) is
//                  partition 0's. A frontier created with P = 1 (or before
//                  partitions) keeps every one in {NAME}'s slot;
//   {NAME:bits:I}  filter shard I, each its own tag, so the shards (and the
//                  push's bit work) spread over the slots and primaries;
//                  shard_bytes (kClusterShardBytes from a redis-cluster://
//                  URL) sets how many there are.
// A pop asks one partition (the next in turn each time, then the following
// ones while it got fewer URLs than it wanted); acks, give-backs and lease
// renewals go to their URLs' partitions; the heartbeat (host leases) and
// IsFinished visit every partition. A client's fair share of hosts is
// counted over the whole frontier from each partition's last figures (at
// most one heartbeat old).
// A push is then two steps instead of one script: (1) per filter shard, a
// script tests-and-sets the k bits of its URLs (the blocked layout puts a
// URL's k bits in one 512-bit block, so in one shard: that step is atomic
// per URL, and exactly one client sees a URL as new); (2) one script in
// {NAME} enqueues the URLs step 1 found new (with several partitions:
// first one script per other partition its new URLs belong to, remembered
// there under the trip and waited for by that primary's replica, then
// {NAME}'s, which ends the trip). Before (1), the trip's URLs
// (with payloads) are written to this client's journal record in {NAME}
// ({NAME}:journal:<client>, scored in {NAME}:journals by now + lease_time);
// (2) reads them from it and deletes it. Both steps remember this client's
// last trip, so a resend after a lost reply returns the first answer
// instead of finding its own bits set (or enqueueing twice). A client that
// dies (or fails for good) with a record pending loses nothing: after
// lease_time another client's pop claims the record and finishes the trip
// under the dead client's trip id (the shards it reached answer as they
// answered it), so exactly the URLs it would have enqueued are enqueued
// (docs/redis.md, "What a crash costs"). Pops, acks and leases are single
// scripts in one partition, the page budget in {NAME}, as on one server. With
// use_push_module and the crawlsieve module on every primary (asked at
// Connect and after each re-read of the slot map), step (1) is the
// module's CRAWLSIEVE.FILTER, one shard per call, with the script's keys,
// records and answers; otherwise, or once a primary answers that it does
// not know the command, the Lua script. The journal and step (2) are Lua
// either way.
// Resharding while clients run: filter shards move safely (each is one
// key: ASK/MOVED are followed); the slot of {NAME} or of a queue partition
// only if all its keys move in one MIGRATE (a script then finds all of
// them on one node; moved in batches, a script could see half of them:
// docs/redis.md, "Resharding"). A primary's
// failover to its replica is ridden out by the retries (retry policy; the
// slot map is re-read between attempts). Redis replicates asynchronously:
// writes a primary acknowledged in its last moments may be missing on the
// replica (filter bits: a URL pushed again is queued twice; a push or an
// ack: a URL lost or fetched twice). Redis Cluster promises no more.
//
// Host partitions (host_key set; `crawl` sets it to the URL's
// scheme://host:port): a host's URLs are handed only to the client holding
// the host's lease, so one process at a time fetches a host and its own
// per-host limits (connections, delay) hold for the whole fleet. A client
// takes a new host only when the hosts it holds have no queued URL left for
// a pop, and only while it holds fewer than its fair share (ceil(hosts with
// a holder or URLs / live clients), at least one; live: popped within
// host_lease_time, counted from Connect) and max_hosts. Hosts beyond its
// share (taken before others joined) get no more pops and go back once
// it has none of their URLs left; a host given back goes to the client
// that has waited longest for one (NAME:hungry). Its host leases are renewed by each of its
// round trips (pop, ack, IsFinished) and last host_lease_time otherwise, so
// a dead client's hosts come back after it. A host is given back when its
// queue is empty and the client has none of its URLs left, or at
// destruction; nobody takes it then for host_cooldown (the delay between two
// fetches of one host that a new holder must keep).
// Without host_key the queue is one FIFO, shared by all, in push order.
//
// Differences from the in-memory Sieve:
//  - Order: with host_key, FIFO per host, and hosts in the order they got
//    URLs; without, FIFO as the in-memory Sieve.
//  - Pop leases URLs in batches of pop_batch_size; a client that dies loses
//    nothing: its leases expire after lease_time and the URLs are handed out
//    again. (So a URL can be fetched twice, never lost.) MarkDone acks are
//    sent with the next round trip (at most done_batch_size or one second
//    late); IsFinished and the destructor send them at once.
//  - IsFinished is fleet-wide: the queue is empty and no lease is held
//    (an expired lease counts until it is handed out again and done), and
//    on a cluster no push journal record is pending.
//  - Close is local: this client stops; the fleet is unaffected.
//  - Stats: queued, in_flight and the filter's figures are fleet-wide (the
//    filter's from BITCOUNT over the shards, cached for stats_cache); the
//    counters (accepted, dropped, popped, done, deferred) are this client's.
//  - Payloads (Sieve::Push's per-URL bytes) are kept with their URL in the
//    host queues and leases (a queued URL costs its payload's bytes more of
//    Redis memory). A URL containing a NUL byte is refused (Stats().refused).
//  - Save returns Unimplemented: the state lives in Redis (persist it with
//    Redis's own AOF/RDB). Open/Create are the in-memory Sieve's.
//  - Failures: each command is retried with exponential back-off (retry).
//    When the retries are exhausted, or Redis restarted and lost the
//    frontier, the client enters a sticky failed state: Health() returns
//    the error, every call returns false / nullopt, and IsFinished returns
//    true (so consumers stop), as if closed.
//
// Threading: every method is safe to call concurrently; one connection per
// RedisSieve, used under one mutex (run one RedisSieve per process, or more
// for more connections).
#ifndef SIEVE_REDIS_SIEVE_H_
#define SIEVE_REDIS_SIEVE_H_

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "bloom/params.h"
#include "sieve/sieve.h"
#include "sieve/stats.h"

namespace sieve {

// How a command that failed on the network is retried: up to max_attempts
// tries in all, waiting first_backoff, then twice as long each time, at most
// max_backoff. The defaults ride out a Redis restart of ~10 s.
struct RedisRetryPolicy {
  int max_attempts = 8;
  std::chrono::milliseconds first_backoff{50};
  std::chrono::milliseconds max_backoff{4000};
};

struct RedisSieveOptions {
  std::string host = "127.0.0.1";
  int port = 6379;
  // A Redis Cluster instead of one server: "HOST:PORT" of some of its
  // nodes (any one that answers gives the slot map; host and port are then
  // unused). See "Redis Cluster" above for the key layout and how a
  // client dying mid-push is covered. Needs the blocked layout.
  std::vector<std::string> cluster_nodes;
  // Prefix of every key; the processes of one crawl share it. Non-empty.
  std::string name = "crawl";
  // The filter, as SieveOptions: n, p and layout give m and k (bloom/params.h).
  // Size n for the whole fleet's distinct URLs: 1e9 at 1% is ~1.25 GB of
  // Redis memory in 3 shards.
  uint64_t expected_count = 10'000'000;
  double fp_rate = 0.01;
  bloom::Layout layout = bloom::Layout::kBlocked;
  // Bytes per bitmap key: a multiple of 64, at most 512 MiB (Redis's cap on a
  // string). Smaller shards spread a big filter over more keys (and more
  // cluster slots); tests use tiny ones to exercise sharding.
  uint64_t shard_bytes = uint64_t{512} << 20;
  // URLs per push script call. Bigger: fewer round trips; each call blocks
  // Redis for its duration (~5 ms at 1024).
  size_t push_batch_size = 1024;
  // Push through the crawlsieve Redis module's CRAWLSIEVE.PUSH when the
  // server has it loaded (checked once at Connect; README, "Crawling with
  // several machines"): the same bits and queues as the Lua push script,
  // ~5x less Redis time per URL. On a cluster: the filter step through its
  // CRAWLSIEVE.FILTER when every primary has it (checked at Connect and
  // after each re-read of the slot map). False: always the Lua scripts.
  bool use_push_module = true;
  // Create the frontier with packed host queues (each batch of URLs
  // deflated by the crawlsieve module's CRAWLSIEVE.PACK: ~40% less Redis
  // memory per queued URL, docs/redis.md) when the server has the module:
  // on a cluster, the primary of NAME's slot. Fixed when the frontier is
  // created (NAME:meta), whatever later clients say; a client connecting to
  // a packed frontier on a server without the module is refused (DataLoss).
  // False: a new frontier stores plain v4 batches (readable without the
  // module).
  bool pack_queue_batches = true;
  // On a Redis Cluster: how many queue partitions a new frontier spreads
  // its host queues and leases over (each partition's keys in one slot:
  // see "Redis Cluster" above); 0: 16. Fixed when the frontier is created
  // (NAME:meta), whatever later clients say. Must be 0 or 1 on one server;
  // at most 1024. 1 gives the layout of frontiers created before
  // partitions (every queue key in {NAME}'s slot).
  uint32_t queue_partitions = 0;
  // URLs leased per pop round trip; the extra ones wait in this client.
  // Bigger: fewer round trips; smaller: fairer sharing between processes.
  size_t pop_batch_size = 16;
  // MarkDone acks held before they are sent (they also go with the next pop).
  size_t done_batch_size = 64;
  // How long a popped URL stays leased before it is handed out again, unless
  // renewed. A dead client's URLs come back after this.
  std::chrono::milliseconds lease_time{std::chrono::minutes(10)};
  // Renew the leases of the URLs this client holds every lease_time / 3 (a
  // heartbeat thread, one small script call), so a URL stays leased while
  // its process lives, however long its fetch takes. False: a URL held
  // longer than lease_time is handed to another client too (fetched twice).
  bool renew_url_leases = true;
  // The politeness partition of a URL (e.g. "https://example.com:443"),
  // computed by the client; see "Host partitions" above. Empty (the
  // default): no partitions, one shared FIFO as the in-memory Sieve. Every
  // client of one frontier must use the same function.
  std::function<std::string(std::string_view url)> host_key;
  // How long a client holds a host without a round trip before another may
  // take it (a dead client's hosts come back after this). Longer than the
  // longest pause between two of a live client's round trips.
  std::chrono::milliseconds host_lease_time{std::chrono::seconds(30)};
  // After a host is given back, nobody takes it for this long: set it to
  // the per-host delay between fetches (`crawl` sets --delay).
  std::chrono::milliseconds host_cooldown{0};
  // Most hosts one client holds at once, a cap below its fair share of the
  // hosts (it takes more only when those it holds have no URL for its pop).
  size_t max_hosts = 1024;
  // Connect / read / write timeout of one attempt.
  std::chrono::milliseconds io_timeout{std::chrono::seconds(2)};
  // How long the fleet-wide filter figures are reused by Stats().
  std::chrono::milliseconds stats_cache{std::chrono::seconds(2)};
  // How often a blocked Pop asks Redis again while other processes hold leases.
  std::chrono::milliseconds poll_interval{50};
  // Where this client's messages go (sieve/log.h): failures, the capacity
  // warning, retries (kDebug). Empty: StderrLogSink.
  LogSink log_sink = nullptr;
  RedisRetryPolicy retry;
};

// A cluster's filter shard: 1 MiB, so 1e9 URLs at 1% (~1.2 GB) are ~1200
// shards spread over the slots (a 1e7 crawl: ~12); a push trip's filter
// step is one script call per shard it touches.
inline constexpr uint64_t kClusterShardBytes = uint64_t{1} << 20;

// Parses "redis://HOST:PORT/NAME" (PORT and NAME optional: 6379, "crawl")
// into `base` with host, port and name replaced, or
// "redis-cluster://HOST:PORT[,HOST:PORT...]/NAME" into cluster_nodes (and
// shard_bytes set to kClusterShardBytes, so the filter spreads over slots).
// A query of options joined by '&' sets more: "lease_ms=N" (lease_time),
// "host_lease_ms=N" (host_lease_time), "max_hosts=N" (max_hosts: a cap
// below the fair share), "queue_partitions=N" (queue_partitions: a new
// cluster frontier's; 1 on one server).
// InvalidArgument otherwise.
absl::StatusOr<RedisSieveOptions> ParseRedisUrl(std::string_view url, RedisSieveOptions base = {});

// The priorities a RedisSieve takes: 1,024 of them (kMaxLanes, as the
// in-memory Sieve's live lanes), from -512 to 511. The bound keeps each
// script's work per host and per pop bounded (a host's lanes and the ready
// lanes are read whole); a push beyond it is refused.
inline constexpr int32_t kRedisMinPriority = -512;
inline constexpr int32_t kRedisMaxPriority = 511;

class RedisSieve final : public Sieve {
 public:
  // Validates the options (InvalidArgument), connects (Unavailable after the
  // retries), loads the scripts and writes or checks NAME:meta
  // (FailedPrecondition naming both parameter sets if they differ; DataLoss
  // naming the key and the version found if another build's format wrote
  // it: v2 and v3 are refused, never misread).
  static absl::StatusOr<std::unique_ptr<RedisSieve>> Connect(const RedisSieveOptions& options);
  // Sends pending acks and gives URLs leased but not yet returned by a pop,
  // and the hosts this client holds, back.
  ~RedisSieve() override;

  using Sieve::Push;
  using Sieve::PushBatch;
  // Priorities: a push at priority P goes to its host's lane P in Redis,
  // and pops take the highest lane first, FIFO within a lane, fleet-wide
  // (docs/redis.md, "Priorities"). P must lie in [kRedisMinPriority,
  // kRedisMaxPriority]: a push beyond is refused (false, Stats().refused,
  // an error logged once).
  bool Push(std::string_view url, std::string_view payload, int32_t priority) override;
  // True for priorities in [kRedisMinPriority, kRedisMaxPriority].
  bool AcceptsPriority(int32_t priority) const override;
  size_t PushBatch(absl::Span<const std::string_view> urls,
                   absl::Span<const std::string_view> payloads,
                   absl::Span<const int32_t> priorities, absl::Span<bool> accepted) override;
  std::optional<SieveEntry> PopEntry() override;
  std::optional<SieveEntry> TryPopEntry() override;
  std::optional<SieveEntry> PopEntryFor(std::chrono::milliseconds timeout) override;
  bool MarkDone(std::string_view url) override;
  bool Defer(std::string_view url) override;
  void Close() override;
  bool IsFinished() const override;
  void AddProducer() override;
  void ProducerDone() override;
  SieveStats Stats() const override;
  absl::Status Save(const std::filesystem::path& dir) const override;

  // OK, or the error that put this client in its failed state (an owner
  // such as `crawl` stops with it instead of taking IsFinished's true for a
  // drained queue).
  absl::Status Health() const override;
  // The filter's bit count m and hash count k, as written in NAME:meta.
  uint64_t bit_count() const;
  // The queue's partitions, as written in NAME:meta (1 but on a cluster).
  uint32_t queue_partitions() const;
  uint32_t hash_count() const;
  // True if pushes go through the crawlsieve module (use_push_module and the
  // server had it at Connect; on a cluster: every primary at the last
  // re-read of the slot map), false if through the Lua script (also after
  // a server answered that the module's command is unknown: restarted
  // without it, or MODULE UNLOAD).
  bool uses_push_module() const;
  // True if the frontier's host queues hold packed batches (NAME:meta, as
  // whoever created it chose: pack_queue_batches).
  bool packs_queue_batches() const;

  // The fleet's page budget (crawl's --max-pages across processes): takes
  // one page if fewer than `limit` were taken in total, counted in
  // NAME:pages (one script run, atomic, so the fleet's total never exceeds
  // `limit`). True if taken, false if the budget is spent or this client
  // failed (Health() says why). A resend after a network error may take a
  // page twice: the budget can come out one page short, never over.
  //   if (sieve->TakePage(1000)) Fetch(url);  // else: stop fetching
  bool TakePage(uint64_t limit);
  // Gives back `count` pages taken and not used (a process that stops
  // holding some), so the others may take them.
  void ReturnPages(uint64_t count);

  // A server's fetch slots across the fleet (crawl's --per-ip and --ip-delay
  // for every process of a shared frontier): takes one of `server`'s
  // `limit` slots (0: no limit) if none of the fleet started there less
  // than `interval` ago; the slot is held until GiveServerSlot or for
  // `lease` (a process killed mid-fetch gives its slots back that way).
  // Fair between clients: a refused client waits in the server's line, and
  // a free start goes to the clients waiting longest first (one at most per
  // interval), so a client that gives a slot back and asks again at once
  // comes after those already waiting. A waiting client keeps its place
  // while it asks again within `patience` (after the interval's rest, if
  // any); one that stops asking (killed, or done with the server) leaves
  // the line then, and until then holds back the starts owed to it.
  // One script run, atomic, in NAME's slot (sieve/src/redis/lua/
  // server_take.lua). A resend after a network error finds its own token.
  //   ServerSlot slot = sieve->TakeServerSlot("10.0.0.7:443", 4, 250ms, 90s, 1s);
  //   if (!slot.token.empty()) { Fetch(); sieve->GiveServerSlot(..., slot.token, 0ms); }
  struct ServerSlot {
    std::string token;                      // "" when refused
    std::chrono::milliseconds retry_in{0};  // refused: the interval's rest; 0: slots held, or
                                            //   promised to older waiters (ask again soon)
  };
  // A failed client (Health()) is refused with retry_in 0.
  ServerSlot TakeServerSlot(std::string_view server, int limit, std::chrono::milliseconds interval,
                            std::chrono::milliseconds lease, std::chrono::milliseconds patience);
  // Gives the slot of `token` back; the server's next start is then at
  // least `next_start_in` from now (the interval counted from a request's
  // going out).
  void GiveServerSlot(std::string_view server, std::string_view token,
                      std::chrono::milliseconds next_start_in);

  struct State;  // sieve/src/redis/redis_state.h

 private:
  explicit RedisSieve(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace sieve

#endif  // SIEVE_REDIS_SIEVE_H_
