// Frontier over a real Sieve: de-duplication goes through the Sieve, depth and
// parent survive the trip, the page limit holds, the buffer is bounded, and
// Exhausted turns true only when every handed-out URL is Done.
#include "crawler/frontier.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "sieve/sieve.h"

namespace crawler {
namespace {

const absl::Time kFrontierT0 = absl::FromUnixSeconds(2'000'000);

std::unique_ptr<sieve::Sieve> MakeSieve() {
  sieve::SieveOptions options;
  options.expected_count = 10000;
  options.fp_rate = 0.001;
  options.queue_memory_budget_bytes = 1 << 20;
  auto sieve = sieve::Sieve::Create(options);
  EXPECT_TRUE(sieve.ok()) << sieve.status();
  return std::move(*sieve);
}

FrontierOptions NoDelay(int per_host = 100) {
  FrontierOptions options;
  options.per_host = per_host;
  options.delay = absl::ZeroDuration();
  return options;
}

CrawlUrl Seed(const std::string& url) {
  CrawlUrl u;
  u.url = url;
  return u;
}

TEST(Frontier, RejectsBadOptions) {
  auto sieve = MakeSieve();
  EXPECT_FALSE(Frontier::Create(nullptr, NoDelay()).ok());
  FrontierOptions zero_buffer = NoDelay();
  zero_buffer.max_buffered = 0;
  EXPECT_FALSE(Frontier::Create(sieve.get(), zero_buffer).ok());
  FrontierOptions zero_host = NoDelay();
  zero_host.per_host = 0;
  EXPECT_FALSE(Frontier::Create(sieve.get(), zero_host).ok());
}

TEST(Frontier, OfferDeduplicatesThroughTheSieve) {
  auto sieve = MakeSieve();
  auto frontier = Frontier::Create(sieve.get(), NoDelay());
  ASSERT_TRUE(frontier.ok()) << frontier.status();
  EXPECT_TRUE((*frontier)->Offer(Seed("http://a/")));
  EXPECT_FALSE((*frontier)->Offer(Seed("http://a/")));
  EXPECT_EQ((*frontier)->OfferLinks({"http://a/", "http://a/x", "http://a/x"}, 1, "http://a/"), 1u);
  const FrontierStats stats = (*frontier)->Stats();
  EXPECT_EQ(stats.offered, 5u);
  EXPECT_EQ(stats.accepted, 2u);
}

TEST(Frontier, DepthParentAndHopsTravelWithTheUrl) {
  auto sieve = MakeSieve();
  auto frontier = Frontier::Create(sieve.get(), NoDelay());
  ASSERT_TRUE(frontier.ok());
  CrawlUrl redirected = Seed("http://b/moved");
  redirected.depth = 3;
  redirected.parent = "http://b/old";
  redirected.redirect_hops = 2;
  (*frontier)->Offer(redirected);
  (*frontier)->OfferLinks({"http://a/1", "http://a/2"}, 4, "http://a/");
  std::vector<CrawlUrl> got;
  while (auto u = (*frontier)->Next(kFrontierT0)) got.push_back(*u);
  ASSERT_EQ(got.size(), 3u);
  for (const CrawlUrl& u : got) {
    if (u.url == "http://b/moved") {
      EXPECT_EQ(u.depth, 3);
      EXPECT_EQ(u.parent, "http://b/old");
      EXPECT_EQ(u.redirect_hops, 2);
      EXPECT_EQ(u.authority, "http://b");
    } else {
      EXPECT_EQ(u.depth, 4);
      EXPECT_EQ(u.parent, "http://a/");
      EXPECT_EQ(u.redirect_hops, 0);
    }
  }
  EXPECT_EQ((*frontier)->Stats().bad_payloads, 0u);
}

// The per-URL data is the URL's payload in the Sieve: pushed with it, and it
// comes back through a spill to disk (5000 links of ~80 bytes with their
// payloads overflow the smallest queue budget, 64 KiB).
TEST(Frontier, DepthAndParentAreTheSievePayload) {
  sieve::SieveOptions options;
  options.expected_count = 10000;
  options.queue_memory_budget_bytes = 64 << 10;
  options.spill_dir = ::testing::TempDir();
  auto sieve = sieve::Sieve::Create(options);
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  auto frontier = Frontier::Create(sieve->get(), NoDelay());
  ASSERT_TRUE(frontier.ok());
  std::vector<std::string> links;
  for (int i = 0; i < 5000; ++i) links.push_back(absl::StrCat("http://a/", i));
  const std::string parent = "http://a/a-parent-page-with-a-fairly-long-path/index.html";
  EXPECT_EQ((*frontier)->OfferLinks(links, 7, parent), links.size());
  EXPECT_GT((*sieve)->Stats().spilled_segments, 0u);
  size_t got = 0;
  while (auto u = (*frontier)->Next(kFrontierT0)) {
    EXPECT_EQ(u->depth, 7);
    EXPECT_EQ(u->parent, parent);
    (*frontier)->Release(*u, {}, kFrontierT0);
    (*frontier)->Done(*u);
    ++got;
  }
  EXPECT_EQ(got, links.size());
}

// A URL pushed without a payload (another embedder, a Sieve that keeps
// none) is crawled at depth 0 with no parent; a malformed payload too, and
// it is counted. Neither is an error or a crash.
TEST(Frontier, EmptyOrMalformedPayloadMeansDepthZero) {
  auto sieve = MakeSieve();
  auto frontier = Frontier::Create(sieve.get(), NoDelay());
  ASSERT_TRUE(frontier.ok());
  ASSERT_TRUE(sieve->Push("http://a/plain"));
  ASSERT_TRUE(sieve->Push("http://a/bad", std::string_view("\x01\x83", 2)));   // truncated varint
  ASSERT_TRUE(sieve->Push("http://a/future", std::string_view("\x09zz", 3)));  // unknown version
  std::vector<CrawlUrl> got;
  while (auto u = (*frontier)->Next(kFrontierT0)) got.push_back(*u);
  ASSERT_EQ(got.size(), 3u);
  for (const CrawlUrl& u : got) {
    EXPECT_EQ(u.depth, 0) << u.url;
    EXPECT_EQ(u.parent, "") << u.url;
    EXPECT_EQ(u.redirect_hops, 0) << u.url;
  }
  EXPECT_EQ((*frontier)->Stats().bad_payloads, 2u);
}

TEST(Frontier, ExhaustedOnlyAfterEveryUrlIsDone) {
  auto sieve = MakeSieve();
  auto frontier = Frontier::Create(sieve.get(), NoDelay());
  ASSERT_TRUE(frontier.ok());
  (*frontier)->Offer(Seed("http://a/"));
  EXPECT_FALSE((*frontier)->Exhausted());
  auto root = (*frontier)->Next(kFrontierT0);
  ASSERT_TRUE(root.has_value());
  EXPECT_FALSE((*frontier)->Exhausted());  // its page may still add links
  (*frontier)->Release(*root, {}, kFrontierT0);
  (*frontier)->OfferLinks({"http://a/child"}, 1, root->url);
  (*frontier)->Done(*root);
  EXPECT_FALSE((*frontier)->Exhausted());
  auto child = (*frontier)->Next(kFrontierT0);
  ASSERT_TRUE(child.has_value());
  (*frontier)->Release(*child, {}, kFrontierT0);
  (*frontier)->Done(*child);
  EXPECT_TRUE((*frontier)->Exhausted());
}

TEST(Frontier, PageLimitStopsHandingOut) {
  auto sieve = MakeSieve();
  FrontierOptions options = NoDelay();
  options.max_pages = 3;
  auto frontier = Frontier::Create(sieve.get(), options);
  ASSERT_TRUE(frontier.ok());
  std::vector<std::string> urls;
  for (int i = 0; i < 10; ++i) urls.push_back(absl::StrCat("http://a/", i));
  (*frontier)->OfferLinks(urls, 0, "");
  std::vector<CrawlUrl> got;
  while (auto u = (*frontier)->Next(kFrontierT0)) got.push_back(*u);
  EXPECT_EQ(got.size(), 3u);
  EXPECT_TRUE((*frontier)->PageLimitReached());
  EXPECT_FALSE((*frontier)->Exhausted());  // three unfinished
  for (const auto& u : got) {
    (*frontier)->Release(u, {}, kFrontierT0);
    (*frontier)->Done(u);
  }
  EXPECT_TRUE((*frontier)->Exhausted());
}

// A fleet's page budget as the test's own counter (RedisSieve keeps it in
// Redis: tests/e2e/redis_frontier_test.cc): taken only below the limit.
class CountedPageBudget final : public PageBudget {
 public:
  bool Take(uint64_t limit) override {
    ++takes;
    if (taken >= limit) return false;
    ++taken;
    return true;
  }
  void Return(uint64_t count) override { taken -= count; }
  uint64_t taken = 0;
  uint64_t takes = 0;
};

TEST(Frontier, SharedMaxPagesIsTheFleetsTotal) {
  auto budget = std::make_shared<CountedPageBudget>();
  auto sieve_a = MakeSieve();
  auto sieve_b = MakeSieve();
  FrontierOptions options = NoDelay();
  options.max_pages = 5;
  options.shared_pages = budget;
  auto a = Frontier::Create(sieve_a.get(), options);
  auto b = Frontier::Create(sieve_b.get(), options);
  ASSERT_TRUE(a.ok() && b.ok());
  std::vector<std::string> urls;
  for (int i = 0; i < 10; ++i) urls.push_back(absl::StrCat("http://a/", i));
  (*a)->OfferLinks(urls, 0, "");
  (*b)->OfferLinks(urls, 0, "");
  std::vector<CrawlUrl> got_a, got_b;
  for (int i = 0; i < 3; ++i) got_a.push_back(*(*a)->Next(kFrontierT0));
  while (auto u = (*b)->Next(kFrontierT0)) got_b.push_back(*u);
  EXPECT_EQ(got_b.size(), 2u);  // 3 + 2 = the fleet's 5
  EXPECT_FALSE((*a)->Next(kFrontierT0).has_value());
  EXPECT_TRUE((*a)->PageLimitReached());
  EXPECT_TRUE((*b)->PageLimitReached());
  // A page put back (the robots gate) is kept by its process for the next.
  (*a)->Release(got_a.back(), {}, kFrontierT0);
  (*a)->Requeue(got_a.back());
  got_a.pop_back();
  EXPECT_FALSE((*a)->PageLimitReached());
  const uint64_t takes = budget->takes;
  std::optional<CrawlUrl> again = (*a)->Next(kFrontierT0);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(budget->takes, takes);  // no new take: the kept one
  EXPECT_EQ(budget->taken, 5u);
  got_a.push_back(*again);
  EXPECT_FALSE((*a)->Exhausted());  // three unfinished
  for (const auto& u : got_a) {
    (*a)->Release(u, {}, kFrontierT0);
    (*a)->Done(u);
  }
  EXPECT_TRUE((*a)->Exhausted());
}

TEST(Frontier, SharedPagesHeldAndUnusedGoBackAtDestruction) {
  auto budget = std::make_shared<CountedPageBudget>();
  auto sieve = MakeSieve();
  FrontierOptions options = NoDelay();
  options.max_pages = 5;
  options.shared_pages = budget;
  {
    auto frontier = Frontier::Create(sieve.get(), options);
    ASSERT_TRUE(frontier.ok());
    EXPECT_FALSE((*frontier)->Next(kFrontierT0).has_value());
    EXPECT_EQ(budget->takes, 0u);  // nothing ready: nothing taken
    (*frontier)->Offer(Seed("http://a/"));
    auto url = (*frontier)->Next(kFrontierT0);
    ASSERT_TRUE(url.has_value());
    (*frontier)->Release(*url, {}, kFrontierT0);
    (*frontier)->Requeue(*url);  // held again, never fetched
    EXPECT_EQ(budget->taken, 1u);
  }
  EXPECT_EQ(budget->taken, 0u);
}

TEST(Frontier, MaxPagesPerHostRefusesBeforeTheSieve) {
  auto sieve = MakeSieve();
  FrontierOptions options = NoDelay();
  options.max_pages_per_host = 3;
  auto frontier = Frontier::Create(sieve.get(), options);
  ASSERT_TRUE(frontier.ok());
  std::vector<std::string> urls;
  for (int i = 0; i < 5; ++i) urls.push_back(absl::StrCat("http://a/", i));
  urls.push_back("http://b/0");
  EXPECT_EQ((*frontier)->OfferLinks(urls, 1, "http://a/"), 4u);  // 3 of a, 1 of b
  EXPECT_FALSE((*frontier)->Offer(Seed("http://a/9")));
  EXPECT_EQ((*frontier)->Stats().over_host_limit, 3u);
  // Refused URLs never reached the filter: a later crawl of them is not blocked.
  EXPECT_TRUE(sieve->Push("http://a/4"));
}

TEST(Frontier, BuffersAtMostMaxBufferedFromTheSieve) {
  auto sieve = MakeSieve();
  FrontierOptions options = NoDelay(1);
  options.max_buffered = 5;
  auto frontier = Frontier::Create(sieve.get(), options);
  ASSERT_TRUE(frontier.ok());
  std::vector<std::string> urls;
  for (int i = 0; i < 100; ++i) urls.push_back(absl::StrCat("http://a/", i));
  (*frontier)->OfferLinks(urls, 0, "");
  auto first = (*frontier)->Next(kFrontierT0);  // one host, one connection: one handed out
  ASSERT_TRUE(first.has_value());
  EXPECT_FALSE((*frontier)->Next(kFrontierT0).has_value());
  EXPECT_LE((*frontier)->Stats().buffered, 5u);
  EXPECT_EQ(sieve->Stats().queued, 100u - 6u);
}

// Our choice (a host with a huge backlog does not starve others):
// URLs of one host beyond max_buffered_per_host do not count against the
// buffer, so the URLs of another host behind them in the Sieve still get in.
TEST(Frontier, BacklogOfOneHostDoesNotStarveOthers) {
  auto sieve = MakeSieve();
  FrontierOptions options = NoDelay(1);
  options.delay = absl::Seconds(10);
  options.max_buffered = 8;
  options.max_buffered_per_host = 4;
  auto frontier = Frontier::Create(sieve.get(), options);
  ASSERT_TRUE(frontier.ok());
  std::vector<std::string> urls;
  for (int i = 0; i < 30; ++i) urls.push_back(absl::StrCat("http://a/", i));
  for (int i = 0; i < 3; ++i) urls.push_back(absl::StrCat("http://b/", i));
  (*frontier)->OfferLinks(urls, 0, "");
  auto first = (*frontier)->Next(kFrontierT0);
  auto second = (*frontier)->Next(kFrontierT0);
  ASSERT_TRUE(first.has_value());
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(first->url, "http://a/0");
  EXPECT_EQ(second->url, "http://b/0");
  // Bounded all the same: max_buffered under the cap plus 4x that over it.
  EXPECT_LE((*frontier)->Stats().buffered, 8u + 4u * 8u);
}

// Past the overflow, the backlog is passed over: URLs of the host at its cap
// go back to the Sieve's tail until another host's URL comes up, at most
// pass_over_per_second of them (a burst of max_buffered at once).
TEST(Frontier, BacklogLongerThanTheOverflowIsPassedOver) {
  auto sieve = MakeSieve();
  FrontierOptions options = NoDelay(1);
  options.delay = absl::Seconds(10);
  options.max_buffered = 8;
  options.max_buffered_per_host = 4;  // overflow: 4 x 8 = 32 URLs
  options.pass_over_per_second = 1000;
  auto frontier = Frontier::Create(sieve.get(), options);
  ASSERT_TRUE(frontier.ok());
  std::vector<std::string> urls;
  for (int i = 0; i < 2000; ++i) urls.push_back(absl::StrCat("http://a/", i));
  for (int i = 0; i < 3; ++i) urls.push_back(absl::StrCat("http://b/", i));
  (*frontier)->OfferLinks(urls, 0, "");
  auto first = (*frontier)->Next(kFrontierT0);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->url, "http://a/0");
  // b/0 sits behind ~1960 URLs of a: at 1000 per second, about 2 s to reach.
  absl::Time now = kFrontierT0;
  std::optional<CrawlUrl> second;
  int calls = 0;
  while (!second.has_value() && now < kFrontierT0 + absl::Seconds(5)) {
    now = std::max(now + absl::Milliseconds(1), (*frontier)->NextReadyTime());
    second = (*frontier)->Next(now);
    ++calls;
  }
  ASSERT_TRUE(second.has_value()) << "b never came out from behind a's backlog";
  EXPECT_EQ(second->url, "http://b/0");
  EXPECT_GT(now, kFrontierT0 + absl::Seconds(1));  // the rate held: 1960 at 1000/s
  EXPECT_LT(now, kFrontierT0 + absl::Seconds(3));
  // NextReadyTime said when to look again (every 10 ms: ~200 looks), not a
  // look every millisecond (~2000).
  EXPECT_LT(calls, 400);
  const FrontierStats stats = (*frontier)->Stats();
  EXPECT_GE(stats.passed_over, 1900u);
  EXPECT_LE(stats.buffered, 8u + 4u * 8u);
  EXPECT_EQ(sieve->Stats().deferred, stats.passed_over);
}

TEST(Frontier, PassingOverLosesAndRepeatsNothing) {
  auto sieve = MakeSieve();
  FrontierOptions options = NoDelay(1);
  options.max_buffered = 8;
  options.max_buffered_per_host = 4;
  auto frontier = Frontier::Create(sieve.get(), options);
  ASSERT_TRUE(frontier.ok());
  std::vector<std::string> urls;
  for (int i = 0; i < 3000; ++i) {
    urls.push_back(absl::StrCat("http://a/", i));
    if (i % 500 == 499) urls.push_back(absl::StrCat("http://b/", i));
  }
  (*frontier)->OfferLinks(urls, 0, "");
  std::set<std::string> seen;
  absl::Time now = kFrontierT0;
  for (int step = 0; step < 20000 && !(*frontier)->Exhausted(); ++step) {
    now += absl::Milliseconds(1);
    while (auto url = (*frontier)->Next(now)) {
      EXPECT_TRUE(seen.insert(url->url).second) << "handed out twice: " << url->url;
      (*frontier)->Release(*url, {}, now);
      (*frontier)->Done(*url);
    }
  }
  EXPECT_TRUE((*frontier)->Exhausted());
  EXPECT_EQ(seen.size(), urls.size());
  EXPECT_GT((*frontier)->Stats().passed_over, 0u);
}

TEST(Frontier, OneHostAloneIsNeverPassedOver) {
  auto sieve = MakeSieve();
  FrontierOptions options = NoDelay(1);
  options.max_buffered = 8;
  options.max_buffered_per_host = 4;
  auto frontier = Frontier::Create(sieve.get(), options);
  ASSERT_TRUE(frontier.ok());
  std::vector<std::string> urls;
  for (int i = 0; i < 1000; ++i) urls.push_back(absl::StrCat("http://a/", i));
  (*frontier)->OfferLinks(urls, 0, "");
  absl::Time now = kFrontierT0;
  for (size_t i = 0; i < urls.size(); ++i) {
    now += absl::Milliseconds(1);
    auto url = (*frontier)->Next(now);
    ASSERT_TRUE(url.has_value());
    EXPECT_EQ(url->url, urls[i]);  // FIFO kept: nothing went round the Sieve
    (*frontier)->Release(*url, {}, now);
    (*frontier)->Done(*url);
  }
  EXPECT_EQ((*frontier)->Stats().passed_over, 0u);
  EXPECT_TRUE((*frontier)->Exhausted());
}

TEST(Frontier, WithoutThePerHostCapABacklogFillsTheBuffer) {
  auto sieve = MakeSieve();
  FrontierOptions options = NoDelay(1);
  options.delay = absl::Seconds(10);
  options.max_buffered = 8;
  options.max_buffered_per_host = 0;
  auto frontier = Frontier::Create(sieve.get(), options);
  ASSERT_TRUE(frontier.ok());
  std::vector<std::string> urls;
  for (int i = 0; i < 30; ++i) urls.push_back(absl::StrCat("http://a/", i));
  urls.push_back("http://b/0");
  (*frontier)->OfferLinks(urls, 0, "");
  ASSERT_TRUE((*frontier)->Next(kFrontierT0).has_value());
  EXPECT_FALSE((*frontier)->Next(kFrontierT0).has_value());  // b is stuck behind a in the Sieve
}

TEST(Frontier, KeepsTheSievesFifoOrderWithinAHost) {
  auto sieve = MakeSieve();
  auto frontier = Frontier::Create(sieve.get(), NoDelay(1));
  ASSERT_TRUE(frontier.ok());
  std::vector<std::string> urls;
  for (int i = 0; i < 20; ++i) urls.push_back(absl::StrCat("http://a/", i));
  (*frontier)->OfferLinks(urls, 0, "");
  for (int i = 0; i < 20; ++i) {
    auto u = (*frontier)->Next(kFrontierT0);
    ASSERT_TRUE(u.has_value());
    EXPECT_EQ(u->url, urls[i]);
    (*frontier)->Release(*u, {}, kFrontierT0);
    (*frontier)->Done(*u);
  }
  EXPECT_TRUE((*frontier)->Exhausted());
}

TEST(Frontier, ConcurrentOffersOfTheSameUrlsYieldEachOnce) {
  auto sieve = MakeSieve();
  auto frontier = Frontier::Create(sieve.get(), NoDelay(1000));
  ASSERT_TRUE(frontier.ok());
  constexpr int kProducers = 3;
  constexpr int kUrls = 2000;  // each producer offers the same URLs
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&] {
      for (int i = 0; i < kUrls; ++i) {
        (*frontier)->Offer(Seed(absl::StrCat("http://h", i % 7, "/", i)));
      }
    });
  }
  std::set<std::string> seen;
  size_t handed = 0;
  auto drain = [&] {
    while (auto u = (*frontier)->Next(absl::Now())) {
      ++handed;
      seen.insert(u->url);
      (*frontier)->Release(*u, {}, absl::Now());
      (*frontier)->Done(*u);
    }
  };
  for (auto& t : producers) t.join();
  drain();
  EXPECT_EQ(handed, static_cast<size_t>(kUrls));
  EXPECT_EQ(seen.size(), static_cast<size_t>(kUrls));
  EXPECT_TRUE((*frontier)->Exhausted());
}

}  // namespace
}  // namespace crawler
