// Many threads at once (run under TSan in CI): the same new URL pushed by 8
// threads at the same moment is enqueued exactly once, and a crawl-shaped
// workload (consumers that push links and mark their URL done) ends with every
// consumer's Pop returning empty, every URL handled once.
#include <atomic>
#include <barrier>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "sieve/sieve.h"
#include "sieve/test_urls.h"

namespace sieve {
namespace {

using sieve_test::ScratchDir;
using sieve_test::TestUrl;

constexpr int kThreads = 8;

#ifdef CRAWL_SANITIZED
constexpr int kRounds = 2000;  // TSan is ~10x slower; still 16000 racing pushes
#else
constexpr int kRounds = 20000;
#endif

std::unique_ptr<Sieve> RacingSieve(const ScratchDir& dir, uint64_t expected) {
  SieveOptions options;
  options.expected_count = expected;
  options.spill_dir = dir.path();
  options.queue_memory_budget_bytes = 64 << 10;  // small, so pushes race with spills
  absl::StatusOr<std::unique_ptr<Sieve>> sieve = Sieve::Create(options);
  EXPECT_TRUE(sieve.ok()) << sieve.status();
  return *std::move(sieve);
}

TEST(SieveConcurrencyTest, SameUrlPushedBy8ThreadsAtOnceIsEnqueuedExactlyOnce) {
  ScratchDir dir;
  auto sieve = RacingSieve(dir, kRounds * 2);
  std::atomic<uint64_t> wins{0};
  std::vector<std::atomic<int>> winners_per_round(kRounds);
  // All 8 threads push URL r in round r, released together by the barrier.
  std::barrier sync(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < kRounds; ++r) {
        const std::string url = TestUrl(r);
        sync.arrive_and_wait();
        if (sieve->Push(url)) {
          wins.fetch_add(1);
          winners_per_round[r].fetch_add(1);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  int rounds_with_one_winner = 0;
  for (auto& w : winners_per_round) {
    ASSERT_LE(w.load(), 1) << "a URL was enqueued twice";
    rounds_with_one_winner += w.load();
  }
  // A round may have no winner only if the URL was a false positive (p = 1%
  // at full capacity, the filter here is half full: well under 1%).
  EXPECT_GT(rounds_with_one_winner, kRounds * 99 / 100);
  const SieveStats stats = sieve->Stats();
  EXPECT_EQ(stats.queued, wins.load());
  EXPECT_EQ(stats.accepted, wins.load());
  EXPECT_EQ(stats.accepted + stats.dropped, uint64_t{kRounds} * kThreads);
  std::set<std::string> queued;
  while (std::optional<std::string> url = sieve->TryPop()) {
    EXPECT_TRUE(queued.insert(*url).second) << "duplicate in queue: " << *url;
  }
  EXPECT_EQ(queued.size(), wins.load());
}

TEST(SieveConcurrencyTest, OverlappingBatchesFrom8ThreadsEnqueueEachUrlOnce) {
  ScratchDir dir;
  auto sieve = RacingSieve(dir, kRounds * 4);
  std::vector<std::thread> threads;
  std::atomic<uint64_t> accepted{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Thread t pushes URLs [t * kRounds / 8, t * kRounds / 8 + kRounds):
      // each URL is in up to 8 threads' batches, racing.
      std::vector<std::string> urls;
      for (int i = 0; i < kRounds; ++i) urls.push_back(TestUrl(t * kRounds / 8 + i));
      std::vector<std::string_view> views(urls.begin(), urls.end());
      for (size_t start = 0; start < views.size(); start += 700) {
        const size_t size = std::min<size_t>(700, views.size() - start);
        accepted.fetch_add(sieve->PushBatch(absl::MakeConstSpan(views).subspan(start, size)));
      }
    });
  }
  for (auto& t : threads) t.join();
  std::set<std::string> queued;
  while (std::optional<std::string> url = sieve->TryPop()) {
    ASSERT_TRUE(queued.insert(*url).second) << "duplicate in queue: " << *url;
  }
  EXPECT_EQ(queued.size(), accepted.load());
  const uint64_t distinct = kRounds + (kThreads - 1) * kRounds / 8;
  EXPECT_GT(queued.size(), distinct * 99 / 100);
  EXPECT_LE(queued.size(), distinct);
}

// A synthetic site: page i links to pages 2i+1 .. 2i+4 (many links repeat
// across pages), up to kPages pages.
#ifdef CRAWL_SANITIZED
constexpr uint64_t kPages = 5000;
#else
constexpr uint64_t kPages = 50000;
#endif

TEST(SieveConcurrencyTest, CrawlLoopEndsCleanlyInEveryConsumerWithEachPageOnce) {
  ScratchDir dir;
  auto sieve = RacingSieve(dir, kPages * 4);
  ASSERT_TRUE(sieve->Push(TestUrl(0)));
  std::vector<std::atomic<int>> fetched(kPages);
  std::atomic<int> finished_threads{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      while (std::optional<std::string> url = sieve->Pop()) {
        const uint64_t page = std::stoull(url->substr(url->find("article-") + 8));
        fetched[page].fetch_add(1);
        for (uint64_t link = 2 * page + 1; link <= 2 * page + 4; ++link) {
          if (link < kPages) sieve->Push(TestUrl(link));
        }
        EXPECT_TRUE(sieve->MarkDone(*url));
      }
      finished_threads.fetch_add(1);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(finished_threads.load(), kThreads);
  uint64_t total = 0;
  for (auto& f : fetched) {
    ASSERT_LE(f.load(), 1);
    total += f.load();
  }
  const SieveStats stats = sieve->Stats();
  // Every page is reachable; a page is missed only if it was a false positive.
  EXPECT_GT(total, kPages * 99 / 100);
  EXPECT_EQ(stats.popped, total);
  EXPECT_EQ(stats.done, total);
  EXPECT_EQ(stats.queued, 0u);
  EXPECT_EQ(stats.in_flight, 0u);
}

TEST(SieveConcurrencyTest, CloseReleasesBlockedConsumers) {
  ScratchDir dir;
  auto sieve = RacingSieve(dir, 1000);
  sieve->Push(TestUrl(0));
  std::optional<std::string> held = sieve->Pop();  // in flight: others block
  ASSERT_TRUE(held);
  std::atomic<int> returned{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      EXPECT_FALSE(sieve->Pop());
      returned.fetch_add(1);
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(returned.load(), 0);
  sieve->Close();
  for (auto& t : threads) t.join();
  EXPECT_EQ(returned.load(), 4);
}

TEST(SieveConcurrencyTest, SaveWhilePushingAndPoppingIsConsistent) {
  ScratchDir dir;
  auto sieve = RacingSieve(dir, 100000);
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = t; !stop.load(); i += 4) {
        sieve->Push(TestUrl(i % 50000));
        if (i % 3 == 0) {
          if (auto url = sieve->TryPop()) sieve->MarkDone(*url);
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  ASSERT_TRUE(sieve->Save(dir.path() / "ckpt").ok());
  stop.store(true);
  for (auto& t : threads) t.join();
  absl::StatusOr<std::unique_ptr<Sieve>> restored =
      Sieve::Open(dir.path() / "ckpt", SieveOptions{.spill_dir = dir.path()});
  ASSERT_TRUE(restored.ok()) << restored.status();
  // Consistent snapshot: everything accepted is queued, in flight or done.
  const SieveStats stats = (*restored)->Stats();
  EXPECT_EQ(stats.accepted, stats.queued + stats.done);
}

}  // namespace
}  // namespace sieve
