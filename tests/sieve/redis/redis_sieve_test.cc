// RedisSieve's own promises (sieve/redis_sieve.h) beyond the shared contract:
// exactly-once enqueue across clients, the parameters in NAME:meta, sharded
// bitmaps whose bits are bloom's, leases, and failures that end in a clear
// error after bounded retries. Each test has its own redis-server, and runs
// twice: pushing through the Lua script (Lua) and through the crawlsieve
// module (Module, the server started with it).
#include "sieve/redis_sieve.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bloom/filter.h"
#include "gtest/gtest.h"
#include "redis_fixture/redis_server.h"
#include "sieve/redis/queued_urls.h"

namespace sieve {
namespace {

using std::chrono::milliseconds;

// The parameter: the server has the crawlsieve module (pushes go through it).
class RedisSieveTest : public testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    absl::Status started = redis_.Start();
    ASSERT_TRUE(started.ok()) << started;
  }

  std::unique_ptr<RedisSieve> Connect(const RedisSieveOptions& options) {
    absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
    EXPECT_TRUE(sieve.ok()) << sieve.status();
    if (!sieve.ok()) return nullptr;
    EXPECT_EQ((*sieve)->uses_push_module(), GetParam());
    return *std::move(sieve);
  }

  sieve_test::RedisServer redis_{/*with_module=*/GetParam()};
};

std::string SieveUrl(uint64_t i) { return absl::StrCat("https://h", i % 31, ".example/p/", i); }

std::vector<std::string> Urls(uint64_t n) {
  std::vector<std::string> urls;
  for (uint64_t i = 0; i < n; ++i) urls.push_back(SieveUrl(i));
  return urls;
}

TEST_P(RedisSieveTest, TwoClientsEnqueueEachUrlExactlyOnceUnderConcurrency) {
  RedisSieveOptions options = redis_.Options("shared");
  options.expected_count = 100000;
  options.push_batch_size = 16;  // many small scripts, so the clients interleave
  auto a = Connect(options);
  auto b = Connect(options);
  ASSERT_TRUE(a && b);
  const std::vector<std::string> urls = Urls(4000);
  std::atomic<uint64_t> accepted{0};
  auto pusher = [&](RedisSieve* sieve, uint32_t seed) {
    std::vector<std::string_view> mine(urls.begin(), urls.end());
    std::shuffle(mine.begin(), mine.end(), std::mt19937(seed));
    for (size_t i = 0; i < mine.size(); i += 50) {
      const size_t n = std::min<size_t>(50, mine.size() - i);
      accepted += sieve->PushBatch(absl::MakeSpan(mine.data() + i, n));
    }
  };
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < 4; ++t) threads.emplace_back(pusher, t % 2 ? a.get() : b.get(), t);
  for (std::thread& t : threads) t.join();
  // Every URL queued at most once, and the queue holds exactly what the
  // pushes reported as accepted; the filter lost at most a few to false
  // positives (p = 1% sized for 1e5: far below 1% at 4000).
  const std::vector<std::string> queued = sieve_test::QueuedUrls(redis_, "shared:q:");
  std::set<std::string> distinct(queued.begin(), queued.end());
  EXPECT_EQ(distinct.size(), queued.size());
  EXPECT_EQ(queued.size(), accepted.load());
  EXPECT_GE(accepted.load(), 3990u);
  EXPECT_EQ(a->Stats().accepted + b->Stats().accepted, accepted.load());
}

TEST_P(RedisSieveTest, DifferentParametersAreRefusedNamingBoth) {
  RedisSieveOptions options = redis_.Options("fleet");
  options.expected_count = 1000;
  auto first = Connect(options);
  ASSERT_TRUE(first);
  EXPECT_TRUE(Connect(options));  // same parameters: welcome
  RedisSieveOptions other = options;
  other.expected_count = 1'000'000;
  absl::StatusOr<std::unique_ptr<RedisSieve>> refused = RedisSieve::Connect(other);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  const std::string message(refused.status().message());
  EXPECT_NE(message.find(absl::StrCat("m=", first->bit_count())), std::string::npos) << message;
  EXPECT_NE(message.find("'fleet'"), std::string::npos) << message;
  const size_t ours = message.find("these options give");
  ASSERT_NE(ours, std::string::npos) << message;
  EXPECT_EQ(message.find(absl::StrCat("m=", first->bit_count()), ours), std::string::npos);
}

TEST_P(RedisSieveTest, SmallShardsSpreadTheBitsOverSeveralKeys) {
  RedisSieveOptions options = redis_.Options("sharded");
  options.expected_count = 2000;
  options.shard_bytes = 256;  // 2048 bits a key: m ~ 20000 bits is ~10 keys
  auto sieve = Connect(options);
  ASSERT_TRUE(sieve);
  const std::vector<std::string> urls = Urls(1500);
  std::vector<std::string_view> views(urls.begin(), urls.end());
  const size_t accepted = sieve->PushBatch(views);
  EXPECT_GE(accepted, 1480u);
  EXPECT_EQ(sieve->PushBatch(views), 0u);  // every URL seen, across shards
  const uint64_t shards = (sieve->bit_count() + 2047) / 2048;
  EXPECT_GE(shards, 8u);
  uint64_t bits = 0;
  for (uint64_t s = 0; s < shards; ++s) {
    const std::string key = absl::StrCat("sharded:bits:", s);
    EXPECT_LE(std::stoull(redis_.Command({"STRLEN", key})), 256u) << key;
    const uint64_t set = std::stoull(redis_.Command({"BITCOUNT", key}));
    EXPECT_GT(set, 0u) << key;
    bits += set;
  }
  EXPECT_EQ(redis_.Command({"EXISTS", absl::StrCat("sharded:bits:", shards)}), "0");
  EXPECT_NEAR(sieve->Stats().fill_ratio, static_cast<double>(bits) / sieve->bit_count(), 1e-12);
}

// The bits are bloom's: a BloomFilter of the same shape, fed the same URLs,
// answers every insert-if-new the same (a small filter, so that many answers
// are false positives and any difference in positions would show).
void ExpectSameAnswersAsBloom(sieve_test::RedisServer& redis, bloom::Layout layout,
                              uint64_t shard_bytes) {
  RedisSieveOptions options = redis.Options(absl::StrCat("bloom-", static_cast<int>(layout)));
  options.expected_count = 300;
  options.layout = layout;
  options.shard_bytes = shard_bytes;
  absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  EXPECT_EQ((*sieve)->uses_push_module(), redis.with_module());
  absl::StatusOr<bloom::BloomFilter> filter = bloom::BloomFilter::CreateWithShape(
      layout, {(*sieve)->bit_count(), (*sieve)->hash_count()}, 300, 0.01);
  ASSERT_TRUE(filter.ok()) << filter.status();
  const std::vector<std::string> urls = Urls(2000);
  std::vector<std::string_view> views(urls.begin(), urls.end());
  std::unique_ptr<bool[]> in_redis(new bool[urls.size()]);
  (*sieve)->PushBatch(views, absl::MakeSpan(in_redis.get(), urls.size()));
  size_t differences = 0, accepted = 0;
  for (size_t i = 0; i < urls.size(); ++i) {
    const bool in_bloom = filter->InsertIfNew(urls[i]);
    differences += in_bloom != in_redis[i];
    accepted += in_bloom;
  }
  EXPECT_EQ(differences, 0u);
  EXPECT_LT(accepted, 1500u);  // the filter saturated: many false positives compared
  EXPECT_GT(accepted, 300u);
}

TEST_P(RedisSieveTest, BitsAreBloomsInTheBlockedLayout) {
  ExpectSameAnswersAsBloom(redis_, bloom::Layout::kBlocked, uint64_t{512} << 20);
}

TEST_P(RedisSieveTest, BitsAreBloomsInTheClassicLayoutOverManyShards) {
  ExpectSameAnswersAsBloom(redis_, bloom::Layout::kClassic, 64);
}

TEST_P(RedisSieveTest, AnExpiredLeaseIsHandedOutAgain) {
  RedisSieveOptions options = redis_.Options("leases");
  options.lease_time = milliseconds(300);
  options.renew_url_leases = false;  // a client that went silent, as a dead one does
  options.pop_batch_size = 1;
  auto a = Connect(options);
  auto b = Connect(options);
  ASSERT_TRUE(a && b);
  a->Push("https://a.example/");
  std::optional<std::string> url = a->TryPop();
  ASSERT_EQ(url, "https://a.example/");
  EXPECT_FALSE(b->TryPop());      // leased to a
  EXPECT_FALSE(b->IsFinished());  // a live lease: not finished
  // a goes silent (as if it had died); its lease runs out.
  std::this_thread::sleep_for(milliseconds(400));
  EXPECT_EQ(b->TryPop(), "https://a.example/");
  EXPECT_TRUE(b->MarkDone(*url));
  EXPECT_TRUE(b->IsFinished());
  // a's late ack does not disturb anything: the lease is b's (and done).
  EXPECT_TRUE(a->MarkDone(*url));
  EXPECT_TRUE(a->IsFinished());
  EXPECT_EQ(redis_.Command({"ZCARD", "leases:leases"}), "0");
}

TEST_P(RedisSieveTest, ALiveClientKeepsItsUrlsLeasedPastTheLeaseTime) {
  RedisSieveOptions options = redis_.Options("renew");
  options.lease_time = milliseconds(300);  // renewed every 100 ms by the heartbeat
  options.pop_batch_size = 1;
  auto a = Connect(options);
  auto b = Connect(options);
  ASSERT_TRUE(a && b);
  a->Push("https://a.example/slow");
  std::optional<std::string> url = a->TryPop();
  ASSERT_TRUE(url);
  // A fetch four lease times long: the lease must not run out meanwhile.
  for (int i = 0; i < 12; ++i) {
    std::this_thread::sleep_for(milliseconds(100));
    ASSERT_FALSE(b->TryPop()) << "handed out again after " << (i + 1) * 100 << " ms";
  }
  EXPECT_FALSE(b->IsFinished());
  EXPECT_TRUE(a->MarkDone(*url));
  EXPECT_TRUE(a->IsFinished());  // the ack went out with IsFinished's round trip
  EXPECT_TRUE(b->IsFinished());
}

TEST_P(RedisSieveTest, APayloadSurvivesAnExpiredLeaseAndAGiveBack) {
  RedisSieveOptions options = redis_.Options("payload-leases");
  options.lease_time = milliseconds(300);
  options.renew_url_leases = false;  // a's lease must run out while it lives
  options.pop_batch_size = 1;
  auto a = Connect(options);
  auto b = Connect(options);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->Push("https://a.example/", "from-a"));
  ASSERT_TRUE(a->Push("https://b.example/", std::string("\0nul", 4)));
  std::optional<SieveEntry> first = a->TryPopEntry();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->payload, "from-a");
  std::this_thread::sleep_for(milliseconds(400));  // a's lease runs out
  std::optional<SieveEntry> again = b->TryPopEntry();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->url, "https://a.example/");
  EXPECT_EQ(again->payload, "from-a");
  std::optional<SieveEntry> second = b->TryPopEntry();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->payload, std::string("\0nul", 4));
  b.reset();  // gives both back, with their payloads
  auto c = Connect(options);
  ASSERT_TRUE(c);
  std::map<std::string, std::string> payloads;  // the give-back's order is b's in-flight map's
  for (int i = 0; i < 2; ++i) {
    std::optional<SieveEntry> entry = c->TryPopEntry();
    ASSERT_TRUE(entry) << i;
    payloads[entry->url] = entry->payload;
    EXPECT_TRUE(c->MarkDone(entry->url));
  }
  EXPECT_EQ(payloads["https://a.example/"], "from-a");
  EXPECT_EQ(payloads["https://b.example/"], std::string("\0nul", 4));
  EXPECT_TRUE(a->MarkDone("https://a.example/"));  // a's late ack: harmless
  EXPECT_TRUE(c->IsFinished());
}

TEST_P(RedisSieveTest, AUrlWithANulByteIsRefused) {
  auto sieve = Connect(redis_.Options("nul"));
  ASSERT_TRUE(sieve);
  EXPECT_FALSE(sieve->Push(std::string_view("https://a.example/\0x", 20)));
  EXPECT_EQ(sieve->Stats().refused, 1u);
  EXPECT_EQ(sieve->Stats().accepted, 0u);
}

TEST_P(RedisSieveTest, AFrontierOfAnOlderBuildIsRefusedNotMisread) {
  RedisSieveOptions options = redis_.Options("old-build");
  // v2: before payloads; v3: one list element per URL (before packed batches).
  for (const char* version : {"v2", "v3"}) {
    SCOPED_TRACE(version);
    redis_.Command({"SET", "old-build:meta",
                    absl::StrCat(version,
                                 " hash=1 seed=1 layout=blocked m=95850496 k=6 "
                                 "shard_bits=4294967296")});
    absl::StatusOr<std::unique_ptr<RedisSieve>> refused = RedisSieve::Connect(options);
    ASSERT_FALSE(refused.ok());
    // DataLoss: crawl's "bad state" (exit 2), as a checkpoint of another version.
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kDataLoss);
    const std::string message(refused.status().message());
    EXPECT_NE(message.find("older build"), std::string::npos) << message;
    EXPECT_NE(message.find("key old-build:meta says format " + std::string(version)),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("writes v4"), std::string::npos) << message;
  }
}

TEST_P(RedisSieveTest, AClosingClientGivesItsLeasesBackAtOnce) {
  RedisSieveOptions options = redis_.Options("give-back");
  options.pop_batch_size = 8;  // a leases all four with its first pop
  auto a = Connect(options);
  auto b = Connect(options);
  ASSERT_TRUE(a && b);
  for (int i = 0; i < 4; ++i) a->Push(SieveUrl(i));
  ASSERT_EQ(a->TryPop(), SieveUrl(0));
  EXPECT_FALSE(b->TryPop());
  a.reset();  // long lease (10 min), but the destructor releases them
  for (int i = 0; i < 4; ++i) {
    std::optional<std::string> url = b->TryPop();
    ASSERT_TRUE(url) << i;
    EXPECT_TRUE(b->MarkDone(*url));
  }
  EXPECT_TRUE(b->IsFinished());
}

TEST_P(RedisSieveTest, AKilledConnectionOrFlushedScriptsAreRecoveredTransparently) {
  auto sieve = Connect(redis_.Options("recover"));
  ASSERT_TRUE(sieve);
  EXPECT_TRUE(sieve->Push("https://a.example/"));
  redis_.Command({"CLIENT", "KILL", "TYPE", "normal"});
  EXPECT_TRUE(sieve->Push("https://b.example/"));
  redis_.Command({"SCRIPT", "FLUSH"});
  EXPECT_TRUE(sieve->Push("https://c.example/"));
  EXPECT_FALSE(sieve->Push("https://a.example/"));
  EXPECT_TRUE(sieve->Health().ok()) << sieve->Health();
  EXPECT_EQ(sieve->Stats().queued, 3u);
}

TEST_P(RedisSieveTest, RedisDownEndsInAClearErrorAfterBoundedRetries) {
  auto sieve = Connect(redis_.Options("down"));
  ASSERT_TRUE(sieve);
  ASSERT_TRUE(sieve->Push("https://a.example/"));
  redis_.Kill();
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(sieve->Push("https://b.example/"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  absl::Status health = sieve->Health();
  EXPECT_EQ(health.code(), absl::StatusCode::kUnavailable) << health;
  EXPECT_NE(health.message().find("failed 3 attempts"), std::string::npos) << health;
  // Sticky: the client behaves as closed, so consumers stop.
  EXPECT_TRUE(sieve->IsFinished());
  EXPECT_FALSE(sieve->TryPop());
  EXPECT_FALSE(sieve->Pop());
  EXPECT_TRUE(sieve->Stats().closed);
}

TEST_P(RedisSieveTest, RedisRestartedWithoutItsDataIsDataLossNotAFreshStart) {
  auto sieve = Connect(redis_.Options("restart"));
  ASSERT_TRUE(sieve);
  ASSERT_TRUE(sieve->Push("https://a.example/"));
  redis_.Kill();
  ASSERT_TRUE(redis_.Start().ok());  // same port, empty: the frontier is gone
  EXPECT_FALSE(sieve->Push("https://a.example/"));
  absl::Status health = sieve->Health();
  EXPECT_EQ(health.code(), absl::StatusCode::kDataLoss) << health;
  EXPECT_NE(health.message().find("restart:meta"), std::string::npos) << health;
  EXPECT_TRUE(sieve->IsFinished());
}

// The fleet's page budget (crawl's --max-pages across processes): clients
// racing for pages take exactly the limit between them, counted in
// NAME:pages; pages given back may be taken again, never more than the limit.
TEST_P(RedisSieveTest, ClientsRacingForThePageBudgetTakeExactlyTheLimit) {
  RedisSieveOptions options = redis_.Options("budget");
  auto a = Connect(options);
  auto b = Connect(options);
  ASSERT_TRUE(a && b);
  std::atomic<uint64_t> taken{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      RedisSieve* sieve = t % 2 ? a.get() : b.get();
      for (int i = 0; i < 100; ++i) taken += sieve->TakePage(137);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(taken.load(), 137u);
  EXPECT_EQ(redis_.Command({"GET", "budget:pages"}), "137");
  EXPECT_FALSE(a->TakePage(137));
  b->ReturnPages(2);
  EXPECT_TRUE(a->TakePage(137));
  EXPECT_TRUE(b->TakePage(137));
  EXPECT_FALSE(a->TakePage(137));
  EXPECT_TRUE(a->TakePage(138));  // a larger limit (a process started with more) goes on
  EXPECT_EQ(redis_.Command({"GET", "budget:pages"}), "138");
  EXPECT_TRUE(a->Health().ok()) << a->Health();
}

TEST_P(RedisSieveTest, SaveIsUnimplementedBecauseTheStateIsInRedis) {
  auto sieve = Connect(redis_.Options("save"));
  ASSERT_TRUE(sieve);
  EXPECT_EQ(sieve->Save("/nonexistent").code(), absl::StatusCode::kUnimplemented);
}

INSTANTIATE_TEST_SUITE_P(PushPaths, RedisSieveTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) {
                           return info.param ? "Module" : "Lua";
                         });

TEST(RedisUrlTest, ParsesHostPortAndName) {
  absl::StatusOr<RedisSieveOptions> o = ParseRedisUrl("redis://10.0.0.5:6380/news");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->host, "10.0.0.5");
  EXPECT_EQ(o->port, 6380);
  EXPECT_EQ(o->name, "news");
  o = ParseRedisUrl("redis://cache");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->host, "cache");
  EXPECT_EQ(o->port, 6379);
  EXPECT_EQ(o->name, "crawl");
  o = ParseRedisUrl("redis://cache:7000/jobs?lease_ms=1500");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->name, "jobs");
  EXPECT_EQ(o->port, 7000);
  EXPECT_EQ(o->lease_time, std::chrono::milliseconds(1500));
  o = ParseRedisUrl("redis://cache/jobs?host_lease_ms=800&lease_ms=900");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->host_lease_time, std::chrono::milliseconds(800));
  EXPECT_EQ(o->lease_time, std::chrono::milliseconds(900));
  EXPECT_FALSE(ParseRedisUrl("redis://cache/jobs?lease=1").ok());
  EXPECT_FALSE(ParseRedisUrl("redis://cache/jobs?lease_ms=1&").ok());
  EXPECT_FALSE(ParseRedisUrl("redis://cache/jobs?host_lease_ms=0").ok());
  EXPECT_FALSE(ParseRedisUrl("http://x:1/y").ok());
  EXPECT_FALSE(ParseRedisUrl("redis://x:0/y").ok());
  EXPECT_FALSE(ParseRedisUrl("redis://:6379/y").ok());
}

TEST(RedisOptionsTest, BadOptionsAreRefusedWithTheFieldNamed) {
  RedisSieveOptions o;
  o.name = "";
  EXPECT_NE(RedisSieve::Connect(o).status().message().find("name"), std::string::npos);
  o = RedisSieveOptions{};
  o.shard_bytes = 100;
  EXPECT_NE(RedisSieve::Connect(o).status().message().find("shard_bytes"), std::string::npos);
  o = RedisSieveOptions{};
  o.pop_batch_size = 0;
  EXPECT_EQ(RedisSieve::Connect(o).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sieve
