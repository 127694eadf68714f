// RedisSieve's priority lanes (docs/redis.md, "Priorities"): pops give the
// highest priority first and FIFO within a priority, on one server (both
// push paths) and on a Redis Cluster; two clients see one order; a URL
// deferred, expired or given back returns to its own lane; keys written by
// the layout before lanes (priority 0 only) are read unchanged, and priority
// 0 writes exactly those keys. The order is compared with the in-memory
// Sieve's where one queue makes it exact. redis-server from PATH on
// 127.0.0.1, started by the fixture (shared by the suite's TESTs).
#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "redis_fixture/redis_cluster.h"
#include "redis_fixture/redis_server.h"
#include "sieve/redis_sieve.h"
#include "sieve/sieve.h"
#include "url_origin.h"

namespace sieve {
namespace {

using sieve_test::HostOf;
using std::chrono::milliseconds;

enum class Backend { kRedis, kRedisModule, kCluster };

std::string BackendName(const testing::TestParamInfo<Backend>& info) {
  switch (info.param) {
    case Backend::kRedis:
      return "Redis";
    case Backend::kRedisModule:
      return "RedisModule";
    case Backend::kCluster:
      return "RedisCluster";
  }
  return "unknown";
}

// One push: a URL and its priority.
struct Pushed {
  std::string url;
  int32_t priority;
};

// URLs over `hosts` hosts, priorities cycling through `priorities`.
std::vector<Pushed> Mix(int hosts, int count, const std::vector<int32_t>& priorities) {
  std::vector<Pushed> out;
  for (int i = 0; i < count; ++i) {
    out.push_back({absl::StrCat("https://host", i % hosts, ".example/p/", i),
                   priorities[static_cast<size_t>(i) % priorities.size()]});
  }
  return out;
}

// The order the in-memory Sieve pops `pushes` in: the order one process gets.
std::vector<SieveEntry> MemoryOrder(const std::vector<Pushed>& pushes) {
  SieveOptions options;
  options.expected_count = 10000;
  std::unique_ptr<Sieve> memory = *Sieve::Create(options);
  for (const Pushed& p : pushes) EXPECT_TRUE(memory->Push(p.url, "", p.priority));
  std::vector<SieveEntry> out;
  while (std::optional<SieveEntry> e = memory->TryPopEntry()) {
    memory->MarkDone(e->url);
    out.push_back(*std::move(e));
  }
  return out;
}

std::vector<std::pair<std::string, int32_t>> UrlsAndPriorities(const std::vector<SieveEntry>& in) {
  std::vector<std::pair<std::string, int32_t>> out;
  for (const SieveEntry& e : in) out.emplace_back(e.url, e.priority);
  return out;
}

class LanesTest : public testing::TestWithParam<Backend> {
 protected:
  static void TearDownTestSuite() {
    delete redis_;
    delete module_redis_;
    delete cluster_;
    redis_ = module_redis_ = nullptr;
    cluster_ = nullptr;
  }
  void SetUp() override {
    absl::Status started;
    switch (GetParam()) {
      case Backend::kRedis:
        if (redis_ == nullptr) {
          redis_ = new sieve_test::RedisServer();
          started = redis_->Start();
        }
        break;
      case Backend::kRedisModule:
        if (module_redis_ == nullptr) {
          module_redis_ = new sieve_test::RedisServer(/*with_module=*/true);
          started = module_redis_->Start();
        }
        break;
      case Backend::kCluster:
        if (cluster_ == nullptr) {
          cluster_ = new sieve_test::RedisCluster(3);
          started = cluster_->Start();
        }
        break;
    }
    ASSERT_TRUE(started.ok()) << started;
  }

  // Options of frontier `name` (unique per TEST and backend), without host
  // partitions unless `hosts`; pops one URL at a time unless `pop_batch`.
  RedisSieveOptions Options(const std::string& name, bool hosts, size_t pop_batch = 1) const {
    RedisSieveOptions options;
    switch (GetParam()) {
      case Backend::kRedis:
        options = redis_->Options(name);
        break;
      case Backend::kRedisModule:
        options = module_redis_->Options(name);
        break;
      case Backend::kCluster:
        options = cluster_->Options(name);
        break;
    }
    if (hosts) options.host_key = HostOf;
    options.pop_batch_size = pop_batch;
    options.host_cooldown = milliseconds(0);
    return options;
  }
  static std::unique_ptr<RedisSieve> Connect(const RedisSieveOptions& options) {
    absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
    EXPECT_TRUE(sieve.ok()) << sieve.status();
    return sieve.ok() ? *std::move(sieve) : nullptr;
  }
  // Pushes in one batch (one script call on one server: the module path
  // for priority 0 only, the script otherwise).
  static void PushAll(RedisSieve& sieve, const std::vector<Pushed>& pushes) {
    std::vector<std::string_view> urls;
    std::vector<int32_t> priorities;
    for (const Pushed& p : pushes) {
      urls.push_back(p.url);
      priorities.push_back(p.priority);
    }
    EXPECT_EQ(sieve.PushBatch(urls, {}, priorities, {}), pushes.size());
  }
  static std::vector<SieveEntry> PopAll(RedisSieve& sieve) {
    std::vector<SieveEntry> out;
    while (std::optional<SieveEntry> e = sieve.PopEntryFor(milliseconds(2000))) {
      EXPECT_TRUE(sieve.MarkDone(e->url));
      out.push_back(*std::move(e));
      if (out.size() > 10000) break;  // bounded
    }
    return out;
  }
  // A command on the server (one server only).
  std::string Command(const std::vector<std::string>& args) const {
    return GetParam() == Backend::kRedisModule ? module_redis_->Command(args)
                                               : redis_->Command(args);
  }
  std::string Name(const std::string& base) const {
    return absl::StrCat(base, "-", BackendName(testing::TestParamInfo<Backend>(GetParam(), 0)));
  }

  static sieve_test::RedisServer* redis_;
  static sieve_test::RedisServer* module_redis_;
  static sieve_test::RedisCluster* cluster_;
};
sieve_test::RedisServer* LanesTest::redis_ = nullptr;
sieve_test::RedisServer* LanesTest::module_redis_ = nullptr;
sieve_test::RedisCluster* LanesTest::cluster_ = nullptr;

TEST_P(LanesTest, AcceptsPrioritiesWithinTheBoundAndRefusesOthersClearly) {
  auto sieve = Connect(Options(Name("bound"), /*hosts=*/true));
  ASSERT_TRUE(sieve);
  EXPECT_TRUE(sieve->AcceptsPriority(0));
  EXPECT_TRUE(sieve->AcceptsPriority(kRedisMaxPriority));
  EXPECT_TRUE(sieve->AcceptsPriority(kRedisMinPriority));
  EXPECT_FALSE(sieve->AcceptsPriority(kRedisMaxPriority + 1));
  EXPECT_FALSE(sieve->AcceptsPriority(kRedisMinPriority - 1));
  EXPECT_EQ(kRedisMaxPriority - kRedisMinPriority + 1, static_cast<int32_t>(kMaxLanes));
  EXPECT_FALSE(sieve->Push("https://a.example/over", "", kRedisMaxPriority + 1));
  EXPECT_FALSE(sieve->Push("https://a.example/under", "", kRedisMinPriority - 1));
  EXPECT_EQ(sieve->Stats().refused, 2u);
  // Refused before the filter: the same URL at a priority within the bound
  // is new.
  EXPECT_TRUE(sieve->Push("https://a.example/over", "", kRedisMaxPriority));
  std::optional<SieveEntry> e = sieve->TryPopEntry();
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->url, "https://a.example/over");
  EXPECT_EQ(e->priority, kRedisMaxPriority);
}

// One shared queue (no host_key): exactly the in-memory Sieve's order.
TEST_P(LanesTest, ASharedQueuePopsInTheInMemorySievesOrder) {
  const std::vector<Pushed> pushes = Mix(3, 60, {0, 5, -2, 5, 3, 0, kRedisMaxPriority, -512});
  auto sieve = Connect(Options(Name("shared"), /*hosts=*/false, /*pop_batch=*/4));
  ASSERT_TRUE(sieve);
  PushAll(*sieve, pushes);
  EXPECT_EQ(UrlsAndPriorities(PopAll(*sieve)), UrlsAndPriorities(MemoryOrder(pushes)));
}

// One host: the host's lanes give the in-memory Sieve's order too, pushed
// one URL at a time (the module path takes the priority-0 ones on a server
// with the module).
TEST_P(LanesTest, OneHostPopsInTheInMemorySievesOrder) {
  const std::vector<Pushed> pushes = Mix(1, 50, {0, 0, 7, -1, 7, 2});
  auto sieve = Connect(Options(Name("one-host"), /*hosts=*/true, /*pop_batch=*/3));
  ASSERT_TRUE(sieve);
  for (const Pushed& p : pushes) EXPECT_TRUE(sieve->Push(p.url, "", p.priority));
  EXPECT_EQ(UrlsAndPriorities(PopAll(*sieve)), UrlsAndPriorities(MemoryOrder(pushes)));
}

// Many hosts, one client: priorities never rise along the pops, each host
// lane is FIFO, every URL comes once with its priority.
TEST_P(LanesTest, ManyHostsPopHighestPriorityFirstAndFifoWithinAHostLane) {
  const std::vector<Pushed> pushes = Mix(7, 140, {0, 4, -3, 4, 1, 0, 9, 0, 0, -3, 1});
  auto sieve = Connect(Options(Name("many-hosts"), /*hosts=*/true, /*pop_batch=*/5));
  ASSERT_TRUE(sieve);
  PushAll(*sieve, pushes);
  const std::vector<SieveEntry> popped = PopAll(*sieve);
  ASSERT_EQ(popped.size(), pushes.size());
  std::map<std::string, int32_t> priority_of;
  std::map<std::pair<std::string, int32_t>, std::vector<std::string>> pushed_lane, popped_lane;
  for (const Pushed& p : pushes) {
    priority_of[p.url] = p.priority;
    pushed_lane[{HostOf(p.url), p.priority}].push_back(p.url);
  }
  for (size_t i = 0; i < popped.size(); ++i) {
    EXPECT_EQ(popped[i].priority, priority_of.at(popped[i].url)) << popped[i].url;
    if (i > 0) {
      EXPECT_LE(popped[i].priority, popped[i - 1].priority)
          << i << ": " << popped[i].url << " after " << popped[i - 1].url;
    }
    popped_lane[{HostOf(popped[i].url), popped[i].priority}].push_back(popped[i].url);
  }
  EXPECT_EQ(popped_lane, pushed_lane);
}

// Two clients popping in turn from one frontier get, together, the order
// one in-memory Sieve gives.
TEST_P(LanesTest, TwoClientsSeeOneOrder) {
  const std::vector<Pushed> pushes = Mix(4, 48, {2, 0, -1, 6, 2});
  auto a = Connect(Options(Name("two-clients"), /*hosts=*/false));
  auto b = Connect(Options(Name("two-clients"), /*hosts=*/false));
  ASSERT_TRUE(a && b);
  PushAll(*a, pushes);
  std::vector<SieveEntry> popped;
  for (int turn = 0; popped.size() < pushes.size() && turn < 200; ++turn) {
    RedisSieve& sieve = turn % 2 == 0 ? *a : *b;
    std::optional<SieveEntry> e = sieve.PopEntryFor(milliseconds(2000));
    ASSERT_TRUE(e.has_value()) << turn;
    EXPECT_TRUE(sieve.MarkDone(e->url));
    popped.push_back(*std::move(e));
  }
  EXPECT_EQ(UrlsAndPriorities(popped), UrlsAndPriorities(MemoryOrder(pushes)));
}

// Defer puts a URL behind its own lane: after the lane's other URLs, before
// any lower lane's.
TEST_P(LanesTest, ADeferredUrlGoesBehindItsOwnLane) {
  for (bool hosts : {false, true}) {
    auto sieve = Connect(Options(Name(hosts ? "defer-hosts" : "defer"), hosts));
    ASSERT_TRUE(sieve);
    PushAll(*sieve, {{"https://h.example/low", 0},
                     {"https://h.example/a", 5},
                     {"https://h.example/b", 5},
                     {"https://h.example/top", 8}});
    std::optional<SieveEntry> top = sieve->TryPopEntry();
    ASSERT_TRUE(top.has_value());
    EXPECT_EQ(top->url, "https://h.example/top");
    std::optional<SieveEntry> a = sieve->TryPopEntry();
    ASSERT_TRUE(a.has_value());
    EXPECT_EQ(a->url, "https://h.example/a");
    ASSERT_TRUE(sieve->Defer(a->url));
    ASSERT_TRUE(sieve->Defer(top->url));
    std::vector<std::pair<std::string, int32_t>> expected = {{"https://h.example/top", 8},
                                                             {"https://h.example/b", 5},
                                                             {"https://h.example/a", 5},
                                                             {"https://h.example/low", 0}};
    EXPECT_EQ(UrlsAndPriorities(PopAll(*sieve)), expected) << (hosts ? "hosts" : "shared");
  }
}

// A popped URL whose lease expires (its client stopped without a word) and
// one a closing client gives back both return to the head of their own
// lane, with their payloads.
TEST_P(LanesTest, ExpiredAndGivenBackUrlsReturnToTheirOwnLanes) {
  RedisSieveOptions options = Options(Name("expiry"), /*hosts=*/true);
  options.lease_time = milliseconds(300);
  options.host_lease_time = milliseconds(300);
  auto dead = Connect(options);
  ASSERT_TRUE(dead);
  ASSERT_TRUE(dead->Push("https://h.example/low", "pl", 0));
  ASSERT_TRUE(dead->Push("https://h.example/x1", "p1", 3));
  ASSERT_TRUE(dead->Push("https://h.example/x2", "p2", 3));
  ASSERT_TRUE(dead->Push("https://h.example/neg", "pn", -4));
  std::optional<SieveEntry> x1 = dead->TryPopEntry();
  ASSERT_TRUE(x1.has_value());
  EXPECT_EQ(x1->url, "https://h.example/x1");
  // Stops making round trips, as a killed process: closed, never destroyed.
  dead->Close();
  static std::vector<std::unique_ptr<RedisSieve>>* abandoned =
      new std::vector<std::unique_ptr<RedisSieve>>();
  abandoned->push_back(std::move(dead));

  {
    auto closing = Connect(options);
    ASSERT_TRUE(closing);
    // Its pops wait for the dead client's host lease; the expired URL
    // lease puts x1 back at the head of lane 3.
    std::optional<SieveEntry> first = closing->PopEntryFor(milliseconds(5000));
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(first->url, "https://h.example/x1");
    EXPECT_EQ(first->payload, "p1");
    EXPECT_EQ(first->priority, 3);
  }  // destroyed holding x1: given back to the head of lane 3
  auto survivor = Connect(options);
  ASSERT_TRUE(survivor);
  std::vector<SieveEntry> rest = PopAll(*survivor);
  std::vector<std::pair<std::string, int32_t>> expected = {{"https://h.example/x1", 3},
                                                           {"https://h.example/x2", 3},
                                                           {"https://h.example/low", 0},
                                                           {"https://h.example/neg", -4}};
  EXPECT_EQ(UrlsAndPriorities(rest), expected);
  ASSERT_EQ(rest.size(), 4u);
  EXPECT_EQ(rest[0].payload, "p1");
  EXPECT_EQ(rest[3].payload, "pn");
}

// A ready host whose best lane rises moves up: a host taken after another
// whose URLs were all at priority 0 when it got a higher one.
TEST_P(LanesTest, AReadyHostIsTakenByItsBestLane) {
  auto sieve = Connect(Options(Name("ready-moves"), /*hosts=*/true));
  ASSERT_TRUE(sieve);
  PushAll(*sieve,
          {{"https://a.example/1", 0}, {"https://b.example/1", 0}, {"https://c.example/1", 1}});
  // b was ready at lane 0 behind a; a lane-4 URL moves it ahead of c.
  ASSERT_TRUE(sieve->Push("https://b.example/2", "", 4));
  std::vector<std::pair<std::string, int32_t>> popped = UrlsAndPriorities(PopAll(*sieve));
  ASSERT_EQ(popped.size(), 4u);
  std::vector<std::pair<std::string, int32_t>> first = {popped[0], popped[1]};
  std::vector<std::pair<std::string, int32_t>> expected = {{"https://b.example/2", 4},
                                                           {"https://c.example/1", 1}};
  EXPECT_EQ(first, expected);
  // Then the two of priority 0 (the held host's first: hosts are leased).
  std::set<std::pair<std::string, int32_t>> rest = {popped[2], popped[3]};
  std::set<std::pair<std::string, int32_t>> zero = {{"https://a.example/1", 0},
                                                    {"https://b.example/1", 0}};
  EXPECT_EQ(rest, zero);
}

INSTANTIATE_TEST_SUITE_P(Backends, LanesTest,
                         testing::Values(Backend::kRedis, Backend::kRedisModule, Backend::kCluster),
                         BackendName);

// The layout before lanes, on one server: priority 0 writes exactly its
// keys, and keys it wrote (a host list of v4 batches, NAME:ready,
// NAME:queued) are read as they are, beside lanes pushed later.
class OldLayoutTest : public testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(redis_.Start().ok()); }
  sieve_test::RedisServer redis_;
};

std::vector<std::string> Keys(const sieve_test::RedisServer& redis, const std::string& pattern) {
  std::vector<std::string> keys = absl::StrSplit(redis.Command({"KEYS", pattern}), '\n');
  std::sort(keys.begin(), keys.end());
  return keys;
}

TEST_F(OldLayoutTest, PriorityZeroWritesOnlyTheKeysOfTheLayoutBeforeLanes) {
  RedisSieveOptions options = redis_.Options("old");
  options.host_key = HostOf;
  options.pop_batch_size = 1;
  absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  ASSERT_TRUE((*sieve)->Push("https://h.example/a", "", 0));
  ASSERT_TRUE((*sieve)->Push("https://h.example/b"));
  const std::vector<std::string> expected = {"old:bits:0", "old:clients",
                                             "old:meta",   "old:q:https://h.example",
                                             "old:queued", "old:ready"};
  EXPECT_EQ(Keys(redis_, "old:*"), expected);
  // The host's list: one v4 batch of both URLs (queue_batch_test.cc freezes
  // the format): byte 4, the base, then per URL shared, rest and payload.
  const std::string base = "https://h.example/";
  const std::string batch = std::string("\x04") + static_cast<char>(base.size()) + base +
                            static_cast<char>(base.size()) + "\x01" + "a" + std::string(1, '\0') +
                            static_cast<char>(base.size()) + "\x01" + "b" + std::string(1, '\0');
  EXPECT_EQ(redis_.ListElements("old:q:https://h.example"), std::vector<std::string>{batch});
  EXPECT_EQ(redis_.Command({"LRANGE", "old:ready", "0", "-1"}), "https://h.example");
  std::optional<std::string> a = (*sieve)->TryPop();
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(*a, "https://h.example/a");
  EXPECT_EQ(redis_.Command({"HGET", "old:lhosts", "https://h.example/a"}), "https://h.example");
}

TEST_F(OldLayoutTest, KeysWrittenBeforeLanesAreReadUnchanged) {
  RedisSieveOptions options = redis_.Options("before");
  options.host_key = HostOf;
  options.pop_batch_size = 10;
  {  // Creates NAME:meta (the same as before lanes: the format is v4).
    absl::StatusOr<std::unique_ptr<RedisSieve>> creator = RedisSieve::Connect(options);
    ASSERT_TRUE(creator.ok()) << creator.status();
  }
  // What a build before lanes left: two URLs of one host, one with a
  // payload, in one v4 batch, the host ready, the count.
  const std::string base = "https://old.example/dir/";
  const std::string batch = std::string("\x04") + static_cast<char>(base.size()) + base +
                            static_cast<char>(base.size()) + "\x01" + "1" + "\x02" + "pp" +
                            static_cast<char>(base.size()) + "\x01" + "2" + std::string(1, '\0');
  ASSERT_EQ(redis_.Command({"RPUSH", "before:q:https://old.example", batch}), "1");
  ASSERT_EQ(redis_.Command({"RPUSH", "before:ready", "https://old.example"}), "1");
  ASSERT_EQ(redis_.Command({"SET", "before:queued", "2"}), "OK");
  absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  // A later push at priority 2 on the same host comes first.
  ASSERT_TRUE((*sieve)->Push("https://old.example/dir/new", "", 2));
  std::vector<std::tuple<std::string, std::string, int32_t>> popped;
  while (std::optional<SieveEntry> e = (*sieve)->PopEntryFor(milliseconds(2000))) {
    ASSERT_TRUE((*sieve)->MarkDone(e->url));
    popped.emplace_back(e->url, e->payload, e->priority);
    ASSERT_LE(popped.size(), 3u);
  }
  const std::vector<std::tuple<std::string, std::string, int32_t>> expected = {
      {"https://old.example/dir/new", "", 2},
      {"https://old.example/dir/1", "pp", 0},
      {"https://old.example/dir/2", "", 0}};
  EXPECT_EQ(popped, expected);
  EXPECT_EQ(redis_.Command({"GET", "before:queued"}), "0");
  EXPECT_EQ(redis_.Command({"EXISTS", "before:lanes:https://old.example"}), "0");
  EXPECT_EQ(redis_.Command({"EXISTS", "before:q@2:https://old.example"}), "0");
}

// The module's push path counts: a batch of priority 0 only goes through
// CRAWLSIEVE.PUSH, one with another lane through the script.
TEST(LanesModulePath, BatchesWithOtherLanesGoThroughTheScript) {
  sieve_test::RedisServer redis(/*with_module=*/true);
  ASSERT_TRUE(redis.Start().ok());
  RedisSieveOptions options = redis.Options("paths");
  options.host_key = HostOf;
  absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  ASSERT_TRUE((*sieve)->uses_push_module());
  auto module_calls = [&] {
    const std::string stats = redis.Command({"INFO", "commandstats"});
    for (absl::string_view line : absl::StrSplit(stats, '\n')) {
      if (line.rfind("cmdstat_crawlsieve.push:calls=", 0) == 0) {
        return std::stoll(std::string(line.substr(30)));
      }
    }
    return 0LL;
  };
  ASSERT_TRUE((*sieve)->Push("https://m.example/zero"));
  EXPECT_EQ(module_calls(), 1);
  ASSERT_TRUE((*sieve)->Push("https://m.example/five", "", 5));
  EXPECT_EQ(module_calls(), 1);
  EXPECT_EQ(redis.Command({"LLEN", "paths:q@5:https://m.example"}), "1");
  EXPECT_EQ(redis.Command({"ZRANGE", "paths:lanes:https://m.example", "0", "-1"}), "5");
}

}  // namespace
}  // namespace sieve
