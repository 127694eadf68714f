// ParsePool: every submitted job runs exactly once, whether its threads are
// busy or asleep when it comes, from one submitter or several at once, and
// Finish runs what is still queued. Submit signals a sleeping thread only
// when no earlier signal is already on its way: a lost wake-up would leave a
// job queued with every thread asleep, which the one-at-a-time test sees as
// a job that never ends.
#include "../../../crawler/src/app/parse_pool.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace crawler {
namespace {

// Waits until `done` reaches `want` or 30 s pass (a hang, not a speed bound).
bool WaitFor(const std::atomic<int>& done, int want) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (done.load() < want) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::yield();
  }
  return true;
}

TEST(ParsePool, OneJobAtATimeWakesASleepingThreadEachTime) {
  for (int threads : {1, 2, 3}) {
    std::atomic<int> done{0};
    ParsePool<int> pool(threads, [&done](int&&) { done.fetch_add(1); });
    for (int i = 1; i <= 2000; ++i) {
      pool.Submit(i);
      ASSERT_TRUE(WaitFor(done, i)) << "job " << i << " never ran with " << threads << " threads";
      // Let the threads go back to sleep before the next job, now and then.
      if (i % 100 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    pool.Finish();
    EXPECT_EQ(done.load(), 2000);
  }
}

TEST(ParsePool, ConcurrentSubmittersEveryJobRunsExactlyOnce) {
  constexpr int kSubmitters = 4;
  constexpr int kJobsEach = 20000;
  for (int threads : {1, 2, 3}) {
    std::vector<std::atomic<int>> runs(kSubmitters * kJobsEach);
    std::atomic<int> done{0};
    ParsePool<int> pool(threads, [&](int&& job) {
      runs[job].fetch_add(1);
      done.fetch_add(1);
    });
    std::vector<std::thread> submitters;
    for (int s = 0; s < kSubmitters; ++s) {
      submitters.emplace_back([&pool, s] {
        for (int i = 0; i < kJobsEach; ++i) pool.Submit(s * kJobsEach + i);
      });
    }
    for (std::thread& t : submitters) t.join();
    ASSERT_TRUE(WaitFor(done, kSubmitters * kJobsEach)) << threads << " threads";
    pool.Finish();
    EXPECT_EQ(pool.Backlog(), 0u);
    for (size_t i = 0; i < runs.size(); ++i) ASSERT_EQ(runs[i].load(), 1) << "job " << i;
  }
}

TEST(ParsePool, FinishRunsWhatIsStillQueued) {
  std::atomic<int> done{0};
  ParsePool<int> pool(2, [&done](int&&) {
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    done.fetch_add(1);
  });
  for (int i = 0; i < 500; ++i) pool.Submit(i);
  pool.Finish();
  EXPECT_EQ(done.load(), 500);
  EXPECT_EQ(pool.Backlog(), 0u);
}

}  // namespace
}  // namespace crawler
