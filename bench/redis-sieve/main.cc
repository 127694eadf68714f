// redis-sieve-bench: RedisSieve's throughput with 1, 2 and 4 client
// processes against one local redis-server, at push/pop batch sizes 1, 64 and
// 1024, beside the in-memory Sieve in the same run; then Redis memory per seen
// URL at 1e7 URLs, the Bloom bitmaps against a Redis SET of the same URLs
// (scrapy-redis's dupefilter). Starts its own redis-server on 127.0.0.1.
//
//   redis-sieve-bench [--memory_urls=10000000] [--scale=1] [--batches=1,64,1024]
//                     [--queue_urls=1000000] [--primaries=1,3,6] [--cluster_urls=400000]
//                     [--cluster_paths=lua,module] [--cluster_reps=1]
//                     [--lanes=0,1,16,1024] [--lane_urls=200000] [--lane_rounds=3]
//
// The lanes table: what priorities cost a frontier in Redis, pushes and
// pops at 1, 16 and 1,024 distinct priorities (round-robin) against none.
// Theory: a non-zero priority's URL goes to its host's list of that
// priority and keeps a sorted set of the host's lanes and the ready sets
// current, a few more Redis calls per batch and per host, not per URL; a pop
// looks up the best lane first. Through the Lua script at every lane count
// (the module takes only priority-0 batches).
//
// Then Redis memory per queued URL (host queues as crawl makes them, the
// filter excluded) and the scale-out on a Redis Cluster of 1, 3 and 6
// primaries on this machine, as URLs per CPU-second, with the cluster's
// filter step through the Lua script and through the crawlsieve module's
// CRAWLSIEVE.FILTER (the journal and the enqueue are Lua on both: the
// module saves the filter step's Lua, a third to a half of a push's
// script work).
//
// Theory: a push batch costs one round trip plus the server's work: the Lua
// script's (a Lua string per argument, k BITFIELD probes per URL, ~5 us of
// Lua per URL on Redis 7.0) or the crawlsieve module's (CRAWLSIEVE.PUSH: k
// bit tests in C++ and one list push per URL, well under 1 us). At batch 1
// the round trip (~25 us on loopback) dominates, at 1024 the per-URL work:
// in the client (hashing, building the command) as much as in Redis once
// the module is in. Both paths run in the same run against one server.
// Redis is single-threaded: more client processes help only while Redis
// waits on round trips. Memory: the filter costs m/8 bytes whatever the URLs
// (~1.25 bytes/URL at p = 1%, blocked), a SET ~ URL length + ~50 bytes of
// dict entry and object overhead per member.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/marshalling.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "redis_fixture/redis_cluster.h"
#include "redis_harness.h"
#include "sieve/memory_sieve.h"
#include "sieve/redis_sieve.h"
#include "sieve/url_generator.h"

ABSL_FLAG(uint64_t, memory_urls, 10'000'000, "URLs for the memory comparison (0: skip)");
ABSL_FLAG(double, scale, 1.0, "multiplies the URL counts of the throughput runs");
ABSL_FLAG(uint64_t, queue_urls, 1'000'000,
          "URLs queued for the memory-per-queued-URL table (0: skip)");
ABSL_FLAG(std::vector<std::string>, primaries, std::vector<std::string>({"1", "3", "6"}),
          "cluster sizes of the scale-out table (empty: skip)");
ABSL_FLAG(uint64_t, cluster_urls, 400'000, "URLs pushed then popped per scale-out row");
ABSL_FLAG(int, cluster_procs, 2, "client processes of the scale-out rows");
ABSL_FLAG(std::vector<std::string>, cluster_paths, std::vector<std::string>({"lua", "module"}),
          "filter step paths of the scale-out rows: lua (every node without the crawlsieve "
          "module), module (every node with it: CRAWLSIEVE.FILTER)");
ABSL_FLAG(std::vector<std::string>, cluster_queue_partitions, std::vector<std::string>({"16"}),
          "queue partitions of the scale-out rows' frontiers (RedisSieveOptions::"
          "queue_partitions; 1: the whole queue in {NAME}'s slot)");
ABSL_FLAG(bool, cluster_host_key, true,
          "scale-out rows with crawl's host partitions (host_key: scheme://authority); false: "
          "one shared queue");
ABSL_FLAG(int, cluster_reps, 1,
          "runs per scale-out row, the paths interleaved; with more than one, the medians too");
ABSL_FLAG(bool, pack_queue_batches, true,
          "throughput and scale-out runs on frontiers of packed batches (RedisSieveOptions); "
          "the queue memory table shows both");
ABSL_FLAG(bool, queue_lua, true,
          "the memory-per-queued-URL table has a row pushed through the Lua script (slow at 4e6)");
ABSL_FLAG(bool, queue_defaults_only, false,
          "the memory-per-queued-URL table only at Redis's default list settings (quicker at 4e6)");
ABSL_FLAG(std::vector<std::string>, lanes, std::vector<std::string>({"0", "1", "16", "1024"}),
          "lanes table: distinct priorities of each row's pushes (0: none, the keys of a "
          "frontier without priorities); empty: skip the table");
ABSL_FLAG(uint64_t, lane_urls, 200'000, "URLs pushed then popped per lanes row");
ABSL_FLAG(int, lane_batch, 1024, "push and pop batch of the lanes table");
ABSL_FLAG(int, lane_rounds, 3, "rounds of the lanes table (rows alternate within a round)");
ABSL_FLAG(std::vector<std::string>, batches, std::vector<std::string>({"1", "64", "1024"}),
          "batch sizes of the throughput runs");

namespace {

using Clock = std::chrono::steady_clock;
using redis_bench::RedisHarness;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Redis's own time per call of `command` (INFO commandstats, usec_per_call)
// since the last CONFIG RESETSTAT: the server's share of a push round.
double MicrosPerCall(const RedisHarness& redis, const std::string& command) {
  const std::string info = redis.Command({"INFO", "commandstats"});
  const size_t at = info.find("cmdstat_" + command + ":");
  if (at == std::string::npos) return 0;
  const size_t field = info.find("usec_per_call=", at);
  return field == std::string::npos ? 0 : std::atof(info.c_str() + field + 14);
}

uint64_t UrlsFor(size_t batch) {
  const double base = batch == 1 ? 20'000 : (batch == 64 ? 200'000 : 1'000'000);
  return static_cast<uint64_t>(base * absl::GetFlag(FLAGS_scale));
}

// How pushes reach Redis: the Lua script or the crawlsieve module.
enum class PushPath { kLua, kModule };

const char* Label(PushPath path) { return path == PushPath::kLua ? "redis-lua" : "redis-module"; }

sieve::RedisSieveOptions Options(const RedisHarness& redis, size_t batch, uint64_t expected,
                                 PushPath path = PushPath::kLua) {
  sieve::RedisSieveOptions o;
  o.use_push_module = path == PushPath::kModule;
  o.pack_queue_batches = absl::GetFlag(FLAGS_pack_queue_batches);
  o.port = redis.port();
  o.name = "bench";
  o.expected_count = expected;
  o.push_batch_size = batch;
  o.pop_batch_size = batch;
  o.done_batch_size = batch;
  return o;
}

// Pushes URLs [first, first + count) in calls of `batch`.
void PushRange(sieve::Sieve& sieve, uint64_t first, uint64_t count, size_t batch) {
  sieve_bench::UrlGenerator gen;
  std::vector<std::string> urls(batch);
  std::vector<std::string_view> views(batch);
  for (uint64_t done = 0; done < count;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(batch, count - done));
    for (size_t i = 0; i < n; ++i) {
      gen.Generate(first + done + i, urls[i]);
      views[i] = urls[i];
    }
    sieve.PushBatch(absl::MakeSpan(views.data(), n));
    done += n;
  }
}

// Pops and marks done until this client finds nothing; returns the count.
uint64_t DrainAll(sieve::Sieve& sieve) {
  uint64_t n = 0;
  while (std::optional<std::string> url = sieve.TryPop()) {
    sieve.MarkDone(*url);
    ++n;
  }
  return n;
}

// Runs `work` in `procs` forked processes released together; returns the
// wall time from release to the last exit.
template <typename Work>
double InProcesses(int procs, Work work) {
  int ready[2], go[2];
  if (pipe(ready) != 0 || pipe(go) != 0) return -1;
  std::vector<pid_t> pids;
  for (int p = 0; p < procs; ++p) {
    pid_t pid = fork();
    if (pid == 0) {
      auto prepared = work.Prepare(p);
      char c = 1;
      (void)!write(ready[1], &c, 1);
      (void)!read(go[0], &c, 1);
      work.Run(p, prepared);
      _exit(0);
    }
    pids.push_back(pid);
  }
  for (int p = 0; p < procs; ++p) {
    char c;
    (void)!read(ready[0], &c, 1);
  }
  const auto start = Clock::now();
  std::string release(static_cast<size_t>(procs), '\1');
  (void)!write(go[1], release.data(), release.size());
  for (pid_t pid : pids) waitpid(pid, nullptr, 0);
  const double seconds = Seconds(Clock::now() - start);
  for (int fd : {ready[0], ready[1], go[0], go[1]}) close(fd);
  return seconds;
}

struct PushWork {
  const RedisHarness* redis;
  size_t batch;
  uint64_t per_proc;
  PushPath path;
  std::unique_ptr<sieve::RedisSieve> Prepare(int) const {
    auto s = sieve::RedisSieve::Connect(Options(*redis, batch, 4 * per_proc * 2, path));
    if (!s.ok()) {
      std::fprintf(stderr, "connect: %s\n", s.status().ToString().c_str());
      _exit(1);
    }
    if ((*s)->uses_push_module() != (path == PushPath::kModule)) {
      std::fprintf(stderr, "the server's crawlsieve module was not found\n");
      _exit(1);
    }
    return *std::move(s);
  }
  void Run(int p, std::unique_ptr<sieve::RedisSieve>& s) const {
    PushRange(*s, static_cast<uint64_t>(p) * per_proc, per_proc, batch);
  }
};

struct PopWork {
  const RedisHarness* redis;
  size_t batch;
  uint64_t per_proc;
  std::unique_ptr<sieve::RedisSieve> Prepare(int p) const {
    return PushWork{redis, batch, per_proc, PushPath::kLua}.Prepare(p);
  }
  void Run(int, std::unique_ptr<sieve::RedisSieve>& s) const { DrainAll(*s); }
};

// URLs queued in the frontier "bench" (NAME:queued counts them; its list
// holds packed batches of URLs, not one element each).
uint64_t QueuedUrls(const RedisHarness& redis) {
  const std::string queued = redis.Command({"GET", "bench:queued"});
  return queued.empty() ? 0 : std::stoull(queued);
}

void ThroughputTable(RedisHarness& redis) {
  std::printf("\n## Throughput (URLs/s, aggregate over the client processes)\n\n");
  std::printf(
      "| sieve | procs | batch | URLs | pushes/s | pops/s (pop+MarkDone) | Redis us per push "
      "call |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
  for (const std::string& batch_text : absl::GetFlag(FLAGS_batches)) {
    const size_t batch = std::stoul(batch_text);
    const uint64_t total = UrlsFor(batch);
    {
      sieve::SieveOptions o;
      o.expected_count = total * 2;
      auto mem = sieve::MemorySieve::Create(o);
      const auto t0 = Clock::now();
      PushRange(**mem, 0, total, batch);
      const double push_s = Seconds(Clock::now() - t0);
      const auto t1 = Clock::now();
      const uint64_t popped = DrainAll(**mem);
      const double pop_s = Seconds(Clock::now() - t1);
      std::printf("| memory | 1 | %zu | %llu | %.0f | %.0f | |\n", batch,
                  static_cast<unsigned long long>(total), total / push_s, popped / pop_s);
    }
    for (int procs : {1, 2, 4}) {
      for (PushPath path : {PushPath::kLua, PushPath::kModule}) {
        redis.Command({"FLUSHALL"});
        redis.Command({"CONFIG", "RESETSTAT"});
        const uint64_t per_proc = total / static_cast<uint64_t>(procs);
        const double push_s = InProcesses(procs, PushWork{&redis, batch, per_proc, path});
        const double push_us =
            MicrosPerCall(redis, path == PushPath::kLua ? "evalsha" : "crawlsieve.push");
        const uint64_t queued = QueuedUrls(redis);
        const double pop_s = InProcesses(procs, PopWork{&redis, batch, per_proc});
        const uint64_t left = QueuedUrls(redis);
        std::printf("| %s | %d | %zu | %llu | %.0f | %.0f | %.0f |%s\n", Label(path), procs, batch,
                    static_cast<unsigned long long>(per_proc * procs), per_proc * procs / push_s,
                    (queued - left) / pop_s, push_us, left == 0 ? "" : " (queue not drained!)");
        std::fflush(stdout);
      }
    }
  }
}

// The priority of the i-th URL of a lanes row of `lanes` distinct
// priorities: round-robin, the worst case for locality; one lane is
// priority 1 (the keys of a non-zero lane), 1,024 lanes span -512..511.
int32_t LanePriority(uint64_t i, uint32_t lanes) {
  if (lanes <= 1) return static_cast<int32_t>(lanes);
  return static_cast<int32_t>(i % lanes) - static_cast<int32_t>(lanes / 2);
}

// Pushes URLs [0, count) in calls of `batch` with their LanePriority.
void PushLanes(sieve::Sieve& sieve, uint64_t count, size_t batch, uint32_t lanes) {
  sieve_bench::UrlGenerator gen;
  std::vector<std::string> urls(batch);
  std::vector<std::string_view> views(batch);
  std::vector<int32_t> priorities(batch);
  for (uint64_t done = 0; done < count;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(batch, count - done));
    for (size_t i = 0; i < n; ++i) {
      gen.Generate(done + i, urls[i]);
      views[i] = urls[i];
      priorities[i] = LanePriority(done + i, lanes);
    }
    sieve.PushBatch(absl::MakeSpan(views.data(), n), {},
                    lanes == 0 ? absl::Span<const int32_t>() : absl::MakeSpan(priorities.data(), n),
                    {});
    done += n;
  }
}

struct LaneRun {
  double push_per_s = 0;
  double pop_per_s = 0;
  uint64_t left = 0;  // URLs the drain did not reach (must be 0)
};

// One lanes row: a fresh frontier, `count` URLs pushed through the Lua
// script (non-zero priorities always take it), then drained by one client.
LaneRun LanesRow(RedisHarness& redis, uint64_t count, size_t batch, uint32_t lanes) {
  redis.Command({"FLUSHALL"});
  auto s = sieve::RedisSieve::Connect(Options(redis, batch, 2 * count));
  if (!s.ok()) {
    std::fprintf(stderr, "connect: %s\n", s.status().ToString().c_str());
    std::exit(1);
  }
  const auto t0 = Clock::now();
  PushLanes(**s, count, batch, lanes);
  const double push_s = Seconds(Clock::now() - t0);
  const auto t1 = Clock::now();
  const uint64_t popped = DrainAll(**s);
  const double pop_s = Seconds(Clock::now() - t1);
  return {count / push_s, popped / pop_s, QueuedUrls(redis)};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// What priorities cost a Redis frontier: each row's pushes and pops against
// the first row's (no priorities), rows alternating within each round.
void LanesTable(RedisHarness& redis) {
  const uint64_t count = absl::GetFlag(FLAGS_lane_urls);
  const size_t batch = static_cast<size_t>(absl::GetFlag(FLAGS_lane_batch));
  std::vector<uint32_t> lanes;
  for (const std::string& text : absl::GetFlag(FLAGS_lanes)) lanes.push_back(std::stoul(text));
  std::vector<std::vector<double>> push(lanes.size()), pop(lanes.size());
  uint64_t left = 0;
  for (int round = 0; round < absl::GetFlag(FLAGS_lane_rounds); ++round) {
    for (size_t row = 0; row < lanes.size(); ++row) {
      const LaneRun run = LanesRow(redis, count, batch, lanes[row]);
      push[row].push_back(run.push_per_s);
      pop[row].push_back(run.pop_per_s);
      left += run.left;
    }
  }
  std::printf("\n## Lanes (one client, Lua path, batch %zu, %llu URLs a row, median of %d)\n\n",
              batch, static_cast<unsigned long long>(count), absl::GetFlag(FLAGS_lane_rounds));
  std::printf(
      "| priorities | pushes/s | pops/s (pop+MarkDone) | push time vs none | pop time vs none |\n");
  std::printf("|---|---:|---:|---:|---:|\n");
  for (size_t row = 0; row < lanes.size(); ++row) {
    const double push_s = Median(push[row]), pop_s = Median(pop[row]);
    std::printf("| %s | %.0f | %.0f | %.2f | %.2f |\n",
                lanes[row] == 0 ? "none" : absl::StrCat(lanes[row]).c_str(), push_s, pop_s,
                Median(push[0]) / push_s, Median(pop[0]) / pop_s);
  }
  if (left > 0) std::printf("(%llu URLs not drained!)\n", static_cast<unsigned long long>(left));
  std::fflush(stdout);
}

// crawl's host_key: the URL's scheme://authority.
std::string BenchHostKey(std::string_view url) {
  const size_t slash = url.find('/', url.find("://") + 3);
  return std::string(url.substr(0, slash));
}

// CPU seconds used by this process's waited-for children so far.
double ChildCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Redis memory per queued URL, the filter excluded: n URLs queued with
// crawl's host partitions (one list per host), used_memory's delta less
// the filter's keys (MEMORY USAGE), over n. Plain v4 batches and packed
// ones (deflated by the crawlsieve module), pushed by the module and by the
// Lua script (the same bytes: the figure differs only by the noise of
// allocation); with list-compress-depth 0 (Redis's default) and 1 (every
// quicklist node but a list's head and tail LZF-compressed), at Redis's
// default node size (-2: 8 KiB) and at -1 (4 KiB): server settings, no
// client change. Theory (queue format v4, sieve/redis_module/src/
// queue_batch.h): per URL its entry, the URL less the bytes it shares with
// its batch's base (~50 of this mix's ~73) plus three length bytes; per
// 2 KiB batch its base and a listpack entry; per host a key, its quicklist
// and its NAME:ready entry (a few hundred bytes, so the figure falls as
// hosts' queues grow). Packed (batch_codec.h): 4 KiB batches deflated to
// ~24 bytes a URL of content, the same per-host costs.
constexpr uint64_t kPoppedForRate = 200'000;

void QueueMemoryTable(RedisHarness& redis, uint64_t n) {
  std::printf("\n## Redis memory per queued URL at %llu URLs (host queues, filter excluded)\n\n",
              static_cast<unsigned long long>(n));
  std::printf(
      "| batches | push | list-compress-depth | list-max-listpack-size | used_memory delta | "
      "filter keys | queue bytes/URL | Redis us per push call | pops/s (first %llu) |\n",
      static_cast<unsigned long long>(std::min<uint64_t>(n, kPoppedForRate)));
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  struct Row {
    bool packed;
    PushPath path;
    const char* depth;
    const char* node;
  };
  for (const Row& row :
       {Row{false, PushPath::kModule, "0", "-2"}, Row{false, PushPath::kLua, "0", "-2"},
        Row{false, PushPath::kModule, "1", "-2"}, Row{true, PushPath::kModule, "0", "-2"},
        Row{true, PushPath::kLua, "0", "-2"}, Row{true, PushPath::kModule, "1", "-2"},
        Row{true, PushPath::kModule, "0", "-1"}}) {
    if (row.path == PushPath::kLua && !absl::GetFlag(FLAGS_queue_lua)) continue;
    const bool defaults = std::string(row.depth) == "0" && std::string(row.node) == "-2";
    if (!defaults && absl::GetFlag(FLAGS_queue_defaults_only)) continue;
    const char* depth = row.depth;
    const char* node = row.node;
    redis.Command({"FLUSHALL"});
    redis.Command({"CONFIG", "SET", "list-compress-depth", depth});
    redis.Command({"CONFIG", "SET", "list-max-listpack-size", node});
    const uint64_t base = redis.UsedMemory();
    sieve::RedisSieveOptions o = Options(redis, 1024, n, row.path);
    o.pack_queue_batches = row.packed;
    o.host_key = BenchHostKey;
    auto s = sieve::RedisSieve::Connect(o);
    if (!s.ok()) {
      std::fprintf(stderr, "connect: %s\n", s.status().ToString().c_str());
      return;
    }
    redis.Command({"CONFIG", "RESETSTAT"});
    PushRange(**s, 0, n, 1024);
    const double push_us =
        MicrosPerCall(redis, row.path == PushPath::kLua ? "evalsha" : "crawlsieve.push");
    const uint64_t queued = std::stoull(redis.Command({"GET", "bench:queued"}));
    uint64_t filter = 0;
    for (uint64_t shard = 0;; ++shard) {
      const std::string bytes =
          redis.Command({"MEMORY", "USAGE", absl::StrCat("bench:bits:", shard)});
      if (bytes.empty()) break;
      filter += std::stoull(bytes);
    }
    const uint64_t delta = redis.UsedMemory() - base;
    if ((*s)->packs_queue_batches() != row.packed) {
      std::fprintf(stderr, "the server's crawlsieve module was not found\n");
      return;
    }
    // Pops of a crawl's shape (host leases, batches of 1024), timed over
    // the first URLs: each host's head batch is unpacked once, its rest
    // written back plain.
    const uint64_t to_pop = std::min<uint64_t>(queued, kPoppedForRate);
    const auto t0 = Clock::now();
    uint64_t popped = 0;
    while (popped < to_pop) {
      std::optional<std::string> url = (*s)->TryPop();
      if (!url) break;
      (*s)->MarkDone(*url);
      ++popped;
    }
    const double pop_s = Seconds(Clock::now() - t0);
    std::printf("| %s | %s | %s | %s | %llu | %llu | %.1f | %.0f | %.0f |\n",
                row.packed ? "packed (deflate)" : "v4", Label(row.path), depth, node,
                static_cast<unsigned long long>(delta), static_cast<unsigned long long>(filter),
                static_cast<double>(delta - filter) / static_cast<double>(queued), push_us,
                popped / pop_s);
    std::fflush(stdout);
    s->reset();
  }
  redis.Command({"CONFIG", "SET", "list-compress-depth", "0"});
  redis.Command({"CONFIG", "SET", "list-max-listpack-size", "-2"});
  redis.Command({"FLUSHALL"});
}

struct ClusterPushWork {
  std::vector<std::string> nodes;
  uint64_t per_proc;
  uint64_t expected;
  std::string name;
  PushPath path;
  uint32_t partitions;
  sieve::RedisSieveOptions Base() const {
    sieve::RedisSieveOptions o;
    o.cluster_nodes = nodes;
    o.queue_partitions = partitions;
    if (absl::GetFlag(FLAGS_cluster_host_key)) o.host_key = BenchHostKey;
    o.name = name;
    o.expected_count = expected;
    o.shard_bytes = 256 << 10;  // ~40 shards at the default size: spread over 6 primaries
    o.push_batch_size = 1024;
    o.pop_batch_size = 1024;
    o.done_batch_size = 1024;
    o.use_push_module = path == PushPath::kModule;
    return o;
  }
  std::unique_ptr<sieve::RedisSieve> Prepare(int) const {
    auto s = sieve::RedisSieve::Connect(Base());
    if (!s.ok()) {
      std::fprintf(stderr, "connect: %s\n", s.status().ToString().c_str());
      _exit(1);
    }
    if ((*s)->uses_push_module() != (path == PushPath::kModule)) {
      std::fprintf(stderr, "the cluster's filter step is not on the %s path\n", Label(path));
      _exit(1);
    }
    return *std::move(s);
  }
  void Run(int p, std::unique_ptr<sieve::RedisSieve>& s) const {
    PushRange(*s, static_cast<uint64_t>(p) * per_proc, per_proc, 1024);
  }
};

struct ClusterPopWork {
  ClusterPushWork push;
  std::unique_ptr<sieve::RedisSieve> Prepare(int p) const { return push.Prepare(p); }
  void Run(int, std::unique_ptr<sieve::RedisSieve>& s) const { DrainAll(*s); }
};

// "127.0.0.1:PORT" of every node of the cluster.
std::vector<std::string> ClusterNodes(const sieve_test::RedisCluster& cluster) {
  std::vector<std::string> nodes;
  for (size_t i = 0; i < cluster.size(); ++i) nodes.push_back(cluster.Address(i));
  return nodes;
}

// CPU seconds used by all the cluster's nodes so far.
double ClusterCpuSeconds(sieve_test::RedisCluster& cluster) {
  double total = 0;
  for (size_t i = 0; i < cluster.size(); ++i) {
    total += redis_bench::ProcessCpuSeconds(cluster.node(i).pid());
  }
  return total;
}

// One scale-out run's figures.
struct ScaleRow {
  double pushes_per_s, push_cpu_s, push_redis_cpu_s, pushes_per_cpu_s, pops_per_s, pop_cpu_s,
      pops_per_cpu_s, cores_busy, busiest_share;
};

void PrintScaleRow(int primaries, PushPath path, uint32_t partitions, const std::string& run,
                   const ScaleRow& r) {
  std::printf(
      "| %d | %s | %u | %s | %.0f | %.1f | %.1f | %.0f | %.0f | %.1f | %.0f | %.2f | %.0f%% |\n",
      primaries, path == PushPath::kModule ? "module" : "Lua", partitions, run.c_str(),
      r.pushes_per_s, r.push_cpu_s, r.push_redis_cpu_s, r.pushes_per_cpu_s, r.pops_per_s,
      r.pop_cpu_s, r.pops_per_cpu_s, r.cores_busy, 100 * r.busiest_share);
  std::fflush(stdout);
}

// The largest share of the queued URLs one node holds: each node's
// "...queued" counters (one per queue partition in its slots) summed.
double BusiestNodeShare(sieve_test::RedisCluster& cluster) {
  std::vector<double> per_node;
  double total = 0;
  for (size_t i = 0; i < cluster.size(); ++i) {
    double node = 0;
    for (absl::string_view key :
         absl::StrSplit(cluster.CommandOn(i, {"KEYS", "*}:queued"}), '\n', absl::SkipEmpty())) {
      node += std::atof(cluster.CommandOn(i, {"GET", std::string(key)}).c_str());
    }
    per_node.push_back(node);
    total += node;
  }
  if (total == 0) return 0;
  return *std::max_element(per_node.begin(), per_node.end()) / total;
}

// Pushes, then pops, per_proc URLs from each of `procs` processes on
// `cluster`, frontier `name`; then empties the cluster.
ScaleRow ScaleRun(sieve_test::RedisCluster& cluster, uint64_t per_proc, int procs,
                  const std::string& name, PushPath path, uint32_t partitions) {
  const uint64_t total = per_proc * static_cast<uint64_t>(procs);
  ClusterPushWork push{ClusterNodes(cluster), per_proc, total * 2, name, path, partitions};
  const double redis0 = ClusterCpuSeconds(cluster);
  const double cpu0 = ChildCpuSeconds() + redis0;
  const double push_s = InProcesses(procs, push);
  const double redis1 = ClusterCpuSeconds(cluster);
  const double cpu1 = ChildCpuSeconds() + redis1;
  const double busiest = BusiestNodeShare(cluster);
  const double pop_s = InProcesses(procs, ClusterPopWork{push});
  const double cpu2 = ChildCpuSeconds() + ClusterCpuSeconds(cluster);
  for (size_t i = 0; i < cluster.size(); ++i) cluster.CommandOn(i, {"FLUSHALL"});
  const double urls = static_cast<double>(total);
  return {urls / push_s, cpu1 - cpu0, redis1 - redis0,      urls / (cpu1 - cpu0),
          urls / pop_s,  cpu2 - cpu1, urls / (cpu2 - cpu1), (cpu1 - cpu0) / push_s,
          busiest};
}

// Each figure's median over the runs.
ScaleRow MedianRow(const std::vector<ScaleRow>& rows) {
  auto median = [&](double ScaleRow::*field) {
    std::vector<double> v;
    for (const ScaleRow& r : rows) v.push_back(r.*field);
    std::sort(v.begin(), v.end());
    return v.size() % 2 == 1 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  return {median(&ScaleRow::pushes_per_s),     median(&ScaleRow::push_cpu_s),
          median(&ScaleRow::push_redis_cpu_s), median(&ScaleRow::pushes_per_cpu_s),
          median(&ScaleRow::pops_per_s),       median(&ScaleRow::pop_cpu_s),
          median(&ScaleRow::pops_per_cpu_s),   median(&ScaleRow::cores_busy),
          median(&ScaleRow::busiest_share)};
}

// Pushes, then pops, `total` URLs from `procs` processes on clusters of 1,
// 3 and 6 primaries, all on this machine, per filter step path (a cluster
// of each, started together; the paths' runs interleaved). Per-core
// efficiency: URLs per CPU-second of everything that ran (the clients and
// every redis-server), so a cluster that only adds processes competing for
// the same 2 cores shows as less efficient, not as slower by chance.
void ScaleOutTable(uint64_t total, int procs) {
  std::vector<PushPath> paths;
  for (const std::string& p : absl::GetFlag(FLAGS_cluster_paths)) {
    paths.push_back(p == "module" ? PushPath::kModule : PushPath::kLua);
  }
  std::vector<uint32_t> partitions;
  for (const std::string& p : absl::GetFlag(FLAGS_cluster_queue_partitions)) {
    partitions.push_back(static_cast<uint32_t>(std::stoul(p)));
  }
  const int reps = std::max(1, absl::GetFlag(FLAGS_cluster_reps));
  std::printf(
      "\n## Scale-out on a Redis Cluster (%llu URLs, %d client processes, batch 1024, %s)\n\n",
      static_cast<unsigned long long>(total), procs,
      absl::GetFlag(FLAGS_cluster_host_key) ? "host partitions" : "no host partitions");
  std::printf(
      "| primaries | filter step | queue partitions | run | pushes/s | push CPU s "
      "(clients+redis) | of which redis | pushes per CPU-s | pops/s | pop CPU s | pops per "
      "CPU-s | cores busy (push) | queued URLs on the busiest primary |\n");
  std::printf("|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::fflush(stdout);  // before the nodes fork
  for (const std::string& text : absl::GetFlag(FLAGS_primaries)) {
    const int primaries = std::stoi(text);
    std::vector<std::unique_ptr<sieve_test::RedisCluster>> clusters;
    for (PushPath path : paths) {
      clusters.push_back(
          std::make_unique<sieve_test::RedisCluster>(primaries, 0, path == PushPath::kModule));
      if (absl::Status st = clusters.back()->Start(); !st.ok()) {
        std::fprintf(stderr, "%s\n", st.ToString().c_str());
        return;
      }
    }
    const uint64_t per_proc = total / static_cast<uint64_t>(procs);
    // rows[path][partition choice]
    std::vector<std::vector<std::vector<ScaleRow>>> rows(
        paths.size(), std::vector<std::vector<ScaleRow>>(partitions.size()));
    for (int rep = 0; rep < reps; ++rep) {
      for (size_t q = 0; q < partitions.size(); ++q) {
        for (size_t p = 0; p < paths.size(); ++p) {
          rows[p][q].push_back(ScaleRun(*clusters[p], per_proc, procs, absl::StrCat("bench", rep),
                                        paths[p], partitions[q]));
          PrintScaleRow(primaries, paths[p], partitions[q], absl::StrCat(rep + 1),
                        rows[p][q].back());
        }
      }
    }
    for (size_t p = 0; reps > 1 && p < paths.size(); ++p) {
      for (size_t q = 0; q < partitions.size(); ++q) {
        PrintScaleRow(primaries, paths[p], partitions[q], "**median**", MedianRow(rows[p][q]));
      }
    }
  }
}

void MemoryTable(RedisHarness& redis, uint64_t n) {
  std::printf("\n## Redis memory per seen URL at %llu URLs\n\n",
              static_cast<unsigned long long>(n));
  redis.Command({"FLUSHALL"});
  const uint64_t base = redis.UsedMemory();
  auto s = sieve::RedisSieve::Connect(Options(redis, 1024, n, PushPath::kModule));
  const auto t0 = Clock::now();
  // Seen-set only: the filter's bits. The queue is emptied in Redis before
  // measuring (a SET is a seen-set only too).
  PushRange(**s, 0, n, 1024);
  const double push_s = Seconds(Clock::now() - t0);
  redis.Command({"DEL", "bench:q:"});
  const uint64_t bloom_bytes = redis.UsedMemory() - base;
  const uint64_t m = (*s)->bit_count();
  s->reset();
  redis.Command({"FLUSHALL"});
  const uint64_t base2 = redis.UsedMemory();
  const auto t1 = Clock::now();
  redis.SaddRange("bench:seen", n);
  const double sadd_s = Seconds(Clock::now() - t1);
  const uint64_t set_bytes = redis.UsedMemory() - base2;
  redis.Command({"FLUSHALL"});
  std::printf("| seen-set | used_memory delta | bytes/URL | load time | URLs/s |\n");
  std::printf("|---|---:|---:|---:|---:|\n");
  std::printf("| RedisSieve bitmaps (m = %llu bits, p = 1%%) | %llu | %.2f | %.1f s | %.0f |\n",
              static_cast<unsigned long long>(m), static_cast<unsigned long long>(bloom_bytes),
              static_cast<double>(bloom_bytes) / n, push_s, n / push_s);
  std::printf("| Redis SET (SADD, pipelined batches of 1024) | %llu | %.2f | %.1f s | %.0f |\n",
              static_cast<unsigned long long>(set_bytes), static_cast<double>(set_bytes) / n,
              sadd_s, n / sadd_s);
  std::printf("\nSET / bitmaps: %.1fx\n", static_cast<double>(set_bytes) / bloom_bytes);
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  std::printf("# redis-sieve-bench (build %s)\n", CRAWL_BUILD_TYPE);
  if (std::string(CRAWL_BUILD_TYPE) == "Debug")
    std::printf("WARNING: built without optimization\n");
  std::fflush(stdout);  // before any fork: a child must not inherit unflushed output
  RedisHarness redis;
  if (absl::Status s = redis.Start(); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("redis-server %s on 127.0.0.1:%d, no persistence; %ld CPUs\n",
              redis.Version().c_str(), redis.port(), sysconf(_SC_NPROCESSORS_ONLN));
  if (!absl::GetFlag(FLAGS_batches).empty()) ThroughputTable(redis);
  if (!absl::GetFlag(FLAGS_lanes).empty()) LanesTable(redis);
  if (absl::GetFlag(FLAGS_memory_urls) > 0) MemoryTable(redis, absl::GetFlag(FLAGS_memory_urls));
  if (absl::GetFlag(FLAGS_queue_urls) > 0) QueueMemoryTable(redis, absl::GetFlag(FLAGS_queue_urls));
  if (!absl::GetFlag(FLAGS_primaries).empty()) {
    ScaleOutTable(absl::GetFlag(FLAGS_cluster_urls), absl::GetFlag(FLAGS_cluster_procs));
  }
  return 0;
}
