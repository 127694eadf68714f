// The Sieve's contract (sieve/sieve.h), one suite run on both
// implementations: the in-memory Sieve and RedisSieve on a private
// redis-server, the latter pushing through the Lua script and through the
// crawlsieve module (a second server, started with it), and on a 3-primary
// Redis Cluster, both with the filter step through the Lua script and
// through the module's CRAWLSIEVE.FILTER (a second cluster, every node
// with the module). Only what the contract promises of every
// implementation is here; the in-memory specifics (spilling, checkpoints, overflow policy)
// are in tests/sieve/, the Redis specifics in redis_sieve_test.cc.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "redis_fixture/redis_cluster.h"
#include "redis_fixture/redis_server.h"
#include "sieve/redis_sieve.h"
#include "sieve/sieve.h"

namespace sieve {
namespace {

enum class Kind { kMemory, kRedis, kRedisModule, kRedisCluster, kRedisClusterModule };

// One redis-server per push path for the whole suite, started on first use;
// each test uses its own frontier name.
sieve_test::RedisServer*& RedisSlot(bool with_module) {
  static sieve_test::RedisServer* servers[2] = {nullptr, nullptr};
  return servers[with_module ? 1 : 0];
}

sieve_test::RedisServer& SharedRedis(bool with_module) {
  sieve_test::RedisServer*& server = RedisSlot(with_module);
  if (server == nullptr) {
    server = new sieve_test::RedisServer(with_module);
    absl::Status started = server->Start();
    EXPECT_TRUE(started.ok()) << started;
  }
  return *server;
}

sieve_test::RedisCluster*& ClusterSlot(bool with_module) {
  static sieve_test::RedisCluster* clusters[2] = {nullptr, nullptr};
  return clusters[with_module ? 1 : 0];
}

sieve_test::RedisCluster& SharedCluster(bool with_module) {
  sieve_test::RedisCluster*& cluster = ClusterSlot(with_module);
  if (cluster == nullptr) {
    cluster = new sieve_test::RedisCluster(3, 0, with_module);
    absl::Status started = cluster->Start();
    EXPECT_TRUE(started.ok()) << started;
  }
  return *cluster;
}

class SieveContractTest : public testing::TestWithParam<Kind> {
 protected:
  // Stops only what a test started: ctest runs each test in a process of
  // its own, and starting every server here cost each ~4 s.
  static void TearDownTestSuite() {
    for (bool with_module : {false, true}) {
      delete RedisSlot(with_module);
      RedisSlot(with_module) = nullptr;
      delete ClusterSlot(with_module);
      ClusterSlot(with_module) = nullptr;
    }
  }

  std::unique_ptr<Sieve> Make(uint64_t expected = 10000) {
    if (GetParam() == Kind::kMemory) {
      SieveOptions options;
      options.expected_count = expected;
      absl::StatusOr<std::unique_ptr<Sieve>> sieve = Sieve::Create(options);
      EXPECT_TRUE(sieve.ok()) << sieve.status();
      return sieve.ok() ? *std::move(sieve) : nullptr;
    }
    const bool with_module =
        GetParam() == Kind::kRedisModule || GetParam() == Kind::kRedisClusterModule;
    const bool cluster =
        GetParam() == Kind::kRedisCluster || GetParam() == Kind::kRedisClusterModule;
    const testing::TestInfo* test = testing::UnitTest::GetInstance()->current_test_info();
    const std::string name = absl::StrCat(test->name(), ":", ++made_);
    RedisSieveOptions options =
        cluster ? SharedCluster(with_module).Options(name) : SharedRedis(with_module).Options(name);
    options.expected_count = expected;
    absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
    EXPECT_TRUE(sieve.ok()) << sieve.status();
    if (!sieve.ok()) return nullptr;
    EXPECT_EQ((*sieve)->uses_push_module(), with_module);
    return *std::move(sieve);
  }

  int made_ = 0;
};

std::string ContractUrl(uint64_t i) {
  return absl::StrCat("https://host", i % 97, ".example/page/", i);
}

TEST_P(SieveContractTest, PushDropsSeenUrlsAndPopIsFifo) {
  auto sieve = Make();
  ASSERT_TRUE(sieve);
  EXPECT_TRUE(sieve->Push("https://a.example/"));
  EXPECT_TRUE(sieve->Push("https://b.example/"));
  EXPECT_FALSE(sieve->Push("https://a.example/"));
  EXPECT_EQ(*sieve->Pop(), "https://a.example/");
  EXPECT_FALSE(sieve->Push("https://a.example/"));  // seen stays seen after pop
  EXPECT_EQ(*sieve->Pop(), "https://b.example/");
  SieveStats stats = sieve->Stats();
  EXPECT_EQ(stats.accepted, 2u);
  EXPECT_EQ(stats.dropped, 2u);
  EXPECT_EQ(stats.popped, 2u);
  EXPECT_EQ(stats.in_flight, 2u);
}

TEST_P(SieveContractTest, ManyUrlsComeOutOnceInPushOrder) {
  auto sieve = Make(100000);
  ASSERT_TRUE(sieve);
  std::vector<std::string> urls;
  for (uint64_t i = 0; i < 3000; ++i) urls.push_back(ContractUrl(i));
  std::vector<std::string_view> views(urls.begin(), urls.end());
  EXPECT_EQ(sieve->PushBatch(views), 3000u);
  EXPECT_EQ(sieve->PushBatch(views), 0u);  // all seen now
  for (uint64_t i = 0; i < 3000; ++i) {
    std::optional<std::string> url = sieve->TryPop();
    ASSERT_EQ(url, urls[i]) << i;
    EXPECT_TRUE(sieve->MarkDone(*url));
  }
  EXPECT_FALSE(sieve->TryPop());
  EXPECT_TRUE(sieve->IsFinished());
}

TEST_P(SieveContractTest, PushBatchReportsEachResult) {
  auto sieve = Make();
  ASSERT_TRUE(sieve);
  sieve->Push("https://a.example/");
  std::vector<std::string_view> urls = {"https://a.example/", "https://b.example/",
                                        "https://b.example/", "https://c.example/"};
  bool accepted[4];
  EXPECT_EQ(sieve->PushBatch(urls, absl::MakeSpan(accepted)), 2u);
  EXPECT_FALSE(accepted[0]);
  EXPECT_TRUE(accepted[1]);
  EXPECT_FALSE(accepted[2]);
  EXPECT_TRUE(accepted[3]);
  EXPECT_EQ(sieve->Stats().queued, 3u);
}

TEST_P(SieveContractTest, PopReturnsEmptyOnlyWhenDrainedAndNothingInFlight) {
  auto sieve = Make();
  ASSERT_TRUE(sieve);
  EXPECT_FALSE(sieve->Pop());  // nothing queued, nothing in flight: finished
  EXPECT_TRUE(sieve->IsFinished());
  sieve->Push("https://a.example/");
  std::optional<std::string> url = sieve->Pop();
  ASSERT_TRUE(url);
  EXPECT_FALSE(sieve->IsFinished());
  // A's page is still being fetched: a Pop must wait (it may bring links).
  EXPECT_FALSE(sieve->PopFor(std::chrono::milliseconds(20)));
  EXPECT_FALSE(sieve->IsFinished());
  EXPECT_TRUE(sieve->MarkDone(*url));
  EXPECT_FALSE(sieve->MarkDone(*url));  // not in flight any more
  EXPECT_TRUE(sieve->IsFinished());
  EXPECT_FALSE(sieve->Pop());
  SieveStats stats = sieve->Stats();
  EXPECT_EQ(stats.done, 1u);
  EXPECT_EQ(stats.in_flight, 0u);
}

TEST_P(SieveContractTest, DeferSendsAnInFlightUrlToTheTailWithoutForgettingIt) {
  auto sieve = Make();
  ASSERT_TRUE(sieve);
  sieve->Push("https://a.example/1");
  sieve->Push("https://b.example/1");
  std::optional<std::string> first = sieve->TryPop();
  ASSERT_EQ(first, "https://a.example/1");
  EXPECT_FALSE(sieve->Defer("https://c.example/never-popped"));
  EXPECT_TRUE(sieve->Defer(*first));
  EXPECT_FALSE(sieve->Defer(*first));  // no longer in flight
  EXPECT_FALSE(sieve->Push(*first));   // still seen: deferring is not forgetting
  sieve->Push("https://c.example/1");
  EXPECT_EQ(sieve->TryPop(), "https://b.example/1");
  EXPECT_EQ(sieve->TryPop(), "https://a.example/1");  // behind what was queued before it
  EXPECT_EQ(sieve->TryPop(), "https://c.example/1");
  SieveStats stats = sieve->Stats();
  EXPECT_EQ(stats.deferred, 1u);
  EXPECT_EQ(stats.in_flight, 3u);
  EXPECT_EQ(stats.queued, 0u);
  for (const char* url : {"https://a.example/1", "https://b.example/1", "https://c.example/1"}) {
    EXPECT_TRUE(sieve->MarkDone(url));
  }
  EXPECT_TRUE(sieve->IsFinished());
}

TEST_P(SieveContractTest, DeferWakesAWaitingPop) {
  auto sieve = Make();
  ASSERT_TRUE(sieve);
  sieve->Push("https://a.example/");
  std::optional<std::string> url = sieve->Pop();
  ASSERT_TRUE(url);
  std::thread deferrer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    sieve->Defer(*url);
  });
  // Blocks (the URL in flight may bring links) until Defer queues it again.
  EXPECT_EQ(sieve->PopFor(std::chrono::seconds(10)), *url);
  deferrer.join();
}

TEST_P(SieveContractTest, TryPopNeverBlocks) {
  auto sieve = Make();
  ASSERT_TRUE(sieve);
  sieve->Push("https://a.example/");
  ASSERT_TRUE(sieve->TryPop());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(sieve->TryPop());  // one in flight, queue empty: would block
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST_P(SieveContractTest, CloseWakesAndRefuses) {
  auto sieve = Make();
  ASSERT_TRUE(sieve);
  sieve->Push("https://a.example/");
  sieve->Push("https://b.example/");
  ASSERT_TRUE(sieve->Pop());
  std::thread closer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    sieve->Close();
  });
  std::optional<std::string> second = sieve->Pop();  // b: not blocked yet
  EXPECT_EQ(second, "https://b.example/");
  EXPECT_FALSE(sieve->Pop());  // blocks (a and b in flight) until closed
  closer.join();
  EXPECT_TRUE(sieve->IsFinished());
  EXPECT_FALSE(sieve->TryPop());
  EXPECT_FALSE(sieve->Push("https://c.example/"));
  SieveStats stats = sieve->Stats();
  EXPECT_TRUE(stats.closed);
  EXPECT_EQ(stats.in_flight, 2u);
}

TEST_P(SieveContractTest, PayloadsComeBackWithTheirUrlThroughPopAndDefer) {
  auto sieve = Make();
  ASSERT_TRUE(sieve);
  const std::string binary(
      "\x00\x01"
      "depth\xff",
      9);
  EXPECT_TRUE(sieve->Push("https://a.example/", binary));
  EXPECT_TRUE(sieve->Push("https://b.example/"));  // no payload
  std::vector<std::string> urls = {"https://c.example/", "https://d.example/"};
  std::vector<std::string_view> views(urls.begin(), urls.end());
  std::vector<std::string_view> payloads = {"pc", ""};
  EXPECT_EQ(sieve->PushBatch(views, payloads, {}), 2u);
  EXPECT_FALSE(sieve->Push("https://a.example/", "other"));  // seen: the first payload stays

  std::optional<SieveEntry> a = sieve->TryPopEntry();
  ASSERT_TRUE(a);
  EXPECT_EQ(a->url, "https://a.example/");
  EXPECT_EQ(a->payload, binary);
  EXPECT_TRUE(sieve->Defer(a->url));  // to the tail, payload kept
  std::optional<SieveEntry> b = sieve->TryPopEntry();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->url, "https://b.example/");
  EXPECT_EQ(b->payload, "");
  std::optional<SieveEntry> c = sieve->TryPopEntry();
  ASSERT_TRUE(c);
  EXPECT_EQ(c->payload, "pc");
  EXPECT_EQ(sieve->TryPop(), "https://d.example/");  // the URL-only form drops the payload
  std::optional<SieveEntry> again = sieve->TryPopEntry();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->url, "https://a.example/");
  EXPECT_EQ(again->payload, binary);
  for (const char* url :
       {"https://a.example/", "https://b.example/", "https://c.example/", "https://d.example/"}) {
    EXPECT_TRUE(sieve->MarkDone(url)) << url;
  }
  EXPECT_TRUE(sieve->IsFinished());
}

TEST_P(SieveContractTest, AnOversizedPayloadIsRefusedAndTheUrlStaysUnseen) {
  auto sieve = Make();
  ASSERT_TRUE(sieve);
  const std::string big(kMaxPayloadBytes + 1, 'x');
  EXPECT_FALSE(sieve->Push("https://a.example/", big));
  EXPECT_EQ(sieve->Stats().refused, 1u);
  EXPECT_TRUE(sieve->Push("https://a.example/", std::string(kMaxPayloadBytes, 'y')));
  std::optional<SieveEntry> entry = sieve->TryPopEntry();
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->payload.size(), kMaxPayloadBytes);
}

// PushLazy's result is Push's, whether the payload is made before the push
// (Redis) or only for a new URL (in memory; its own test in sieve_test.cc).
TEST_P(SieveContractTest, PushLazyAgreesWithPushAndADeclinedPayloadLeavesTheUrlUnseen) {
  auto sieve = Make();
  ASSERT_TRUE(sieve);
  int made = 0;
  auto payload = [&](std::string text) {
    return [&made, text]() -> std::optional<std::string> {
      ++made;
      return text;
    };
  };
  EXPECT_FALSE(sieve->PushLazy("https://a.example/", [&]() -> std::optional<std::string> {
    ++made;
    return std::nullopt;
  }));
  EXPECT_TRUE(sieve->PushLazy("https://a.example/", payload("first")));
  EXPECT_FALSE(sieve->PushLazy("https://a.example/", payload("again")));
  EXPECT_TRUE(sieve->Push("https://b.example/", "eager"));
  EXPECT_FALSE(sieve->PushLazy("https://b.example/", payload("late")));
  EXPECT_FALSE(sieve->PushLazy("https://c.example/", [&]() -> std::optional<std::string> {
    ++made;
    return std::string(kMaxPayloadBytes + 1, 'x');
  }));
  EXPECT_EQ(sieve->Stats().refused, 1u);
  EXPECT_LE(made, 5);
  std::optional<SieveEntry> first = sieve->TryPopEntry();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->url, "https://a.example/");
  EXPECT_EQ(first->payload, "first");
  std::optional<SieveEntry> second = sieve->TryPopEntry();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->payload, "eager");
  EXPECT_FALSE(sieve->TryPopEntry());
  EXPECT_TRUE(sieve->Push("https://c.example/"));  // refused above, so still unseen
}

TEST_P(SieveContractTest, StatsReportTheFilter) {
  auto sieve = Make(100000);
  ASSERT_TRUE(sieve);
  std::vector<std::string> urls;
  for (uint64_t i = 0; i < 20000; ++i) urls.push_back(ContractUrl(i));
  std::vector<std::string_view> views(urls.begin(), urls.end());
  sieve->PushBatch(views);
  SieveStats stats = sieve->Stats();
  EXPECT_EQ(stats.capacity, 100000u);
  EXPECT_DOUBLE_EQ(stats.target_fp_rate, 0.01);
  EXPECT_NEAR(stats.estimated_count.value_or(-1), 20000, 20000 * 0.03);
  EXPECT_GT(stats.fill_ratio, 0.05);
  EXPECT_LT(stats.fill_ratio, 0.3);
  EXPECT_LT(stats.current_fp_rate, 0.01);
  EXPECT_GT(stats.filter_bytes, 100000u);
  EXPECT_LT(stats.filter_bytes, 200000u);
  EXPECT_EQ(stats.queued + stats.dropped, 20000u);
  EXPECT_EQ(stats.accepted, stats.queued);
}

INSTANTIATE_TEST_SUITE_P(Implementations, SieveContractTest,
                         testing::Values(Kind::kMemory, Kind::kRedis, Kind::kRedisModule,
                                         Kind::kRedisCluster, Kind::kRedisClusterModule),
                         [](const testing::TestParamInfo<Kind>& info) {
                           switch (info.param) {
                             case Kind::kMemory:
                               return "Memory";
                             case Kind::kRedis:
                               return "Redis";
                             case Kind::kRedisModule:
                               return "RedisModule";
                             case Kind::kRedisCluster:
                               return "RedisCluster";
                             case Kind::kRedisClusterModule:
                               return "RedisClusterModule";
                           }
                           return "";
                         });

}  // namespace
}  // namespace sieve
