// RobotsCache: the per-authority state machine under a controlled clock, and
// its thread safety (one fetch per authority however many threads ask).
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "crawler/robots_cache.h"
#include "crawler/robots_outcome.h"
#include "crawler/url.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

class FakeClock : public RobotsClock {
 public:
  TimePoint Now() const override { return now_.load(); }
  void Advance(std::chrono::steady_clock::duration d) { now_.store(now_.load() + d); }

 private:
  std::atomic<TimePoint> now_{TimePoint() + hours(1000)};
};

Url U(std::string_view text) { return *Url::Parse(text); }

class RobotsCacheTest : public ::testing::Test {
 protected:
  std::unique_ptr<RobotsCache> MakeCache(RobotsCacheOptions options = {}) {
    options.agent = "bot/1.0";
    options.clock = &clock_;
    absl::StatusOr<std::unique_ptr<RobotsCache>> cache = RobotsCache::Create(options);
    EXPECT_TRUE(cache.ok()) << cache.status();
    return std::move(*cache);
  }
  RobotsVerdict V(RobotsCache& cache, std::string_view url) { return cache.Check(U(url)).verdict; }
  FakeClock clock_;
};

constexpr char kA[] = "http://a.example:80";

TEST_F(RobotsCacheTest, Rfc2_3_FirstCallerFetchesOthersWaitThenRulesApply) {
  auto cache = MakeCache();
  EXPECT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kFetchRobots);
  EXPECT_EQ(V(*cache, "http://a.example/y"), RobotsVerdict::kWait);
  EXPECT_EQ(V(*cache, "http://a.example/robots.txt"), RobotsVerdict::kAllowed);
  cache->Record(kA, 200,
                "User-agent: bot\nDisallow: /x\nCrawl-delay: 3\nSitemap: http://a.example/s.xml\n");
  EXPECT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kDisallowed);
  EXPECT_EQ(V(*cache, "http://a.example/y"), RobotsVerdict::kAllowed);
  EXPECT_DOUBLE_EQ(cache->CrawlDelay(kA).value_or(-1), 3);
  ASSERT_EQ(cache->Sitemaps(kA).size(), 1u);
  // Another port is another authority.
  EXPECT_EQ(V(*cache, "http://a.example:8080/x"), RobotsVerdict::kFetchRobots);
  const RobotsCacheStats stats = cache->Stats();
  EXPECT_EQ(stats.authorities, 2u);
  EXPECT_EQ(stats.fetches, 2u);
  EXPECT_EQ(stats.parsed, 1u);
}

TEST_F(RobotsCacheTest, Rfc2_3_1_3_NotFoundAllowsEverything) {
  auto cache = MakeCache();
  ASSERT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kFetchRobots);
  cache->Record(kA, 404, "User-agent: *\nDisallow: /\n");  // body of an error page: ignored
  EXPECT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kAllowed);
  EXPECT_FALSE(cache->CrawlDelay(kA).has_value());
  EXPECT_EQ(cache->Stats().unavailable, 1u);
}

TEST_F(RobotsCacheTest, Rfc2_3_1_4_ServerErrorDisallowsWithDoublingBackoff) {
  RobotsCacheOptions options;
  options.first_retry = seconds(10);
  options.max_retry = seconds(35);
  auto cache = MakeCache(options);
  ASSERT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kFetchRobots);
  const std::vector<seconds> expected_waits = {seconds(10), seconds(20), seconds(35), seconds(35)};
  for (seconds wait : expected_waits) {
    cache->Record(kA, 503, "");
    RobotsCheck check = cache->Check(U("http://a.example/x"));
    ASSERT_EQ(check.verdict, RobotsVerdict::kUnreachable);
    EXPECT_EQ(check.retry_at - clock_.Now(), wait);
    clock_.Advance(wait - seconds(1));
    EXPECT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kUnreachable);
    clock_.Advance(seconds(1));
    ASSERT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kFetchRobots);
  }
  cache->Record(kA, 0, "");  // a network error counts the same
  EXPECT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kUnreachable);
  clock_.Advance(seconds(35));
  ASSERT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kFetchRobots);
  cache->Record(kA, 200, "User-agent: *\nDisallow: /x\n");  // recovered
  EXPECT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kDisallowed);
  EXPECT_EQ(V(*cache, "http://a.example/y"), RobotsVerdict::kAllowed);
}

TEST_F(RobotsCacheTest, Rfc2_4_CopyExpiresAfterMaxAgeAndIsRefetchedOnce) {
  auto cache = MakeCache();
  ASSERT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kFetchRobots);
  cache->Record(kA, 200, "User-agent: *\nDisallow: /x\n");
  clock_.Advance(hours(24) - seconds(1));
  EXPECT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kDisallowed);
  clock_.Advance(seconds(1));
  EXPECT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kFetchRobots);
  // Our choice: during the refresh the old copy answers instead of stalling.
  EXPECT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kDisallowed);
  cache->Record(kA, 200, "User-agent: *\nDisallow: /y\n");
  EXPECT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kAllowed);
  EXPECT_EQ(V(*cache, "http://a.example/y"), RobotsVerdict::kDisallowed);
}

TEST_F(RobotsCacheTest, Rfc2_4_UnreachableRefreshKeepsTheLastGoodCopy) {
  auto cache = MakeCache();
  ASSERT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kFetchRobots);
  cache->Record(kA, 200, "User-agent: *\nDisallow: /x\n");
  clock_.Advance(hours(25));
  ASSERT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kFetchRobots);
  cache->Record(kA, 500, "");
  EXPECT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kDisallowed);
  EXPECT_EQ(V(*cache, "http://a.example/y"), RobotsVerdict::kAllowed);
}

TEST_F(RobotsCacheTest, OurChoice_UnreachableFor30DaysCountsAsMissing) {
  RobotsCacheOptions options;
  options.max_retry = hours(24);
  auto cache = MakeCache(options);
  ASSERT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kFetchRobots);
  cache->Record(kA, 500, "");
  for (int day = 0; day < 29; ++day) {
    clock_.Advance(hours(24));
    ASSERT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kFetchRobots) << day;
    cache->Record(kA, 502, "");
    ASSERT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kUnreachable) << day;
  }
  clock_.Advance(hours(24));
  ASSERT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kFetchRobots);
  EXPECT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kAllowed);
}

TEST_F(RobotsCacheTest, OurChoice_AbandonedFetchClaimIsHandedOn) {
  auto cache = MakeCache();
  ASSERT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kFetchRobots);
  clock_.Advance(minutes(4));
  EXPECT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kWait);
  clock_.Advance(minutes(1));
  EXPECT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kFetchRobots);
}

TEST_F(RobotsCacheTest, OurChoice_TooManyRequestsIsUnreachable) {
  auto cache = MakeCache();
  ASSERT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kFetchRobots);
  cache->Record(kA, 429, "");
  EXPECT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kUnreachable);
}

TEST_F(RobotsCacheTest, Rfc2_5_LargeFileParsedUpTo500KiB) {
  auto cache = MakeCache();
  std::string body = "User-agent: *\n";
  while (body.size() < 490 * 1024) body += "# filler filler filler filler filler filler\n";
  body += "Disallow: /deep\n";
  ASSERT_EQ(V(*cache, "http://a.example/deep"), RobotsVerdict::kFetchRobots);
  cache->Record(kA, 200, body + std::string(2 << 20, '#') + "\nDisallow: /\n");
  EXPECT_EQ(V(*cache, "http://a.example/deep"), RobotsVerdict::kDisallowed);
  EXPECT_EQ(V(*cache, "http://a.example/shallow"), RobotsVerdict::kAllowed);
}

// Bounded: past max_authorities the oldest idle entry goes (its robots.txt
// is fetched again when needed); an entry being fetched is never evicted, so
// its Record lands.
TEST_F(RobotsCacheTest, OurChoice_AtMostMaxAuthoritiesOldestIdleEvicted) {
  RobotsCacheOptions options;
  options.max_authorities = 3;
  auto cache = MakeCache(options);
  EXPECT_EQ(V(*cache, "http://f.example/x"), RobotsVerdict::kFetchRobots);  // stays fetching
  for (const char* host : {"a", "b", "c", "d"}) {
    const std::string url = std::string("http://") + host + ".example/x";
    ASSERT_EQ(V(*cache, url), RobotsVerdict::kFetchRobots) << host;
    cache->Record(std::string("http://") + host + ".example:80", 404, "");
  }
  RobotsCacheStats stats = cache->Stats();
  EXPECT_EQ(stats.authorities, 3u);
  EXPECT_EQ(stats.evicted, 2u);  // a and b, not the fetching f
  cache->Record("http://f.example:80", 200, "User-agent: *\nDisallow: /x\n");
  EXPECT_EQ(V(*cache, "http://f.example/x"), RobotsVerdict::kDisallowed);
  EXPECT_EQ(V(*cache, "http://d.example/x"), RobotsVerdict::kAllowed);
  EXPECT_EQ(V(*cache, "http://a.example/x"), RobotsVerdict::kFetchRobots);  // evicted: asked again
  EXPECT_LE(cache->Stats().authorities, 3u);
}

TEST(RobotsCacheCreate, RejectsInvalidOptions) {
  RobotsCacheOptions no_token;
  no_token.agent = "/1.0";
  EXPECT_FALSE(RobotsCache::Create(no_token).ok());
  RobotsCacheOptions too_old;
  too_old.max_age = hours(25);
  EXPECT_FALSE(RobotsCache::Create(too_old).ok());
  RobotsCacheOptions retry;
  retry.first_retry = seconds(10);
  retry.max_retry = seconds(5);
  EXPECT_FALSE(RobotsCache::Create(retry).ok());
  RobotsCacheOptions small;
  small.max_bytes = 1000;
  EXPECT_FALSE(RobotsCache::Create(small).ok());
  RobotsCacheOptions no_room;
  no_room.max_authorities = 0;
  EXPECT_FALSE(RobotsCache::Create(no_room).ok());
  EXPECT_TRUE(RobotsCache::Create({}).ok());
}

TEST(RobotsOutcomeRfc2_3_1, StatusClassesAndRedirectHops) {
  EXPECT_EQ(ClassifyRobotsFetch(200), RobotsFetchOutcome::kParse);
  EXPECT_EQ(ClassifyRobotsFetch(204), RobotsFetchOutcome::kParse);
  EXPECT_EQ(ClassifyRobotsFetch(301), RobotsFetchOutcome::kUnavailable);
  EXPECT_EQ(ClassifyRobotsFetch(404), RobotsFetchOutcome::kUnavailable);
  EXPECT_EQ(ClassifyRobotsFetch(403), RobotsFetchOutcome::kUnavailable);
  EXPECT_EQ(ClassifyRobotsFetch(500), RobotsFetchOutcome::kUnreachable);
  EXPECT_EQ(ClassifyRobotsFetch(0), RobotsFetchOutcome::kUnreachable);
  for (int hops = 0; hops < kRobotsMaxRedirects; ++hops) {
    EXPECT_EQ(RobotsRedirectStep(301, hops), RobotsRedirectAction::kFollow);
  }
  EXPECT_EQ(RobotsRedirectStep(308, 5), RobotsRedirectAction::kStop);
  EXPECT_EQ(RobotsRedirectStep(200, 0), RobotsRedirectAction::kStop);
  EXPECT_EQ(RobotsRedirectStep(304, 0), RobotsRedirectAction::kStop);
}

TEST(RobotsCacheConcurrency, OneFetchPerAuthorityUnderContention) {
  auto cache = std::move(*RobotsCache::Create({}));
  constexpr int kThreads = 8;
  constexpr int kHosts = 20;
  std::atomic<int> fetches{0};
  std::atomic<int> disallowed{0};
  std::atomic<int> waits{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 200; ++round) {
        const int host = (round + t) % kHosts;
        const std::string origin = "http://h" + std::to_string(host) + ".example";
        const Url url = U(origin + "/private/" + std::to_string(round));
        const RobotsVerdict verdict = cache->Check(url).verdict;
        if (verdict == RobotsVerdict::kFetchRobots) {
          fetches.fetch_add(1);
          cache->Record(url.Authority(), 200, "User-agent: *\nDisallow: /private/\n");
        } else if (verdict == RobotsVerdict::kDisallowed) {
          disallowed.fetch_add(1);
        } else {
          EXPECT_EQ(verdict, RobotsVerdict::kWait);
          waits.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(fetches.load(), kHosts);
  // Every check had one of the three answers; never kAllowed for /private/.
  EXPECT_EQ(fetches.load() + disallowed.load() + waits.load(), kThreads * 200);
  EXPECT_GT(disallowed.load(), 0);
  for (int host = 0; host < kHosts; ++host) {
    const std::string origin = "http://h" + std::to_string(host) + ".example";
    EXPECT_EQ(cache->Check(U(origin + "/private/x")).verdict, RobotsVerdict::kDisallowed);
    EXPECT_EQ(cache->Check(U(origin + "/public")).verdict, RobotsVerdict::kAllowed);
  }
  EXPECT_EQ(cache->Stats().fetches, static_cast<uint64_t>(kHosts));
}

}  // namespace
}  // namespace crawler
