// Producer counting (Sieve::AddProducer / ProducerDone / Sieve::Producer):
// consumers started before their producers wait for URLs, and end once every
// producer is done and the queue is drained. Our own contract.
#include <atomic>
#include <chrono>
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

std::unique_ptr<Sieve> MakeSieve(const ScratchDir& dir) {
  SieveOptions options;
  options.expected_count = 100'000;
  options.spill_dir = dir.path();
  options.queue_memory_budget_bytes = 64 << 10;
  auto sieve = Sieve::Create(options);
  EXPECT_TRUE(sieve.ok()) << sieve.status();
  return sieve.ok() ? *std::move(sieve) : nullptr;
}

TEST(ProducerTest, WithoutProducersAPopOnAnEmptySieveEndsAtOnce) {
  ScratchDir dir;
  auto sieve = MakeSieve(dir);
  EXPECT_FALSE(sieve->Pop().has_value());
  EXPECT_TRUE(sieve->IsFinished());
}

TEST(ProducerTest, ConsumersStartedBeforeTheProducerGetEveryUrlOnce) {
  ScratchDir dir;
  auto sieve = MakeSieve(dir);
  constexpr int kUrls = 20'000;
  Sieve::Producer producer(*sieve);  // before the consumers can see an empty queue
  EXPECT_FALSE(sieve->IsFinished());
  EXPECT_EQ(sieve->Stats().producers, 1u);
  std::mutex mutex;
  std::multiset<std::string> got;
  std::vector<std::thread> consumers;
  for (int t = 0; t < 4; ++t) {
    consumers.emplace_back([&] {
      while (std::optional<std::string> url = sieve->Pop()) {
        {
          std::lock_guard<std::mutex> lock(mutex);
          got.insert(*url);
        }
        sieve->MarkDone(*url);
      }
    });
  }
  // The consumers are blocked on an empty queue now, not finished.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (int i = 0; i < kUrls; ++i) sieve->Push(TestUrl(i % (kUrls / 2)));  // each twice
  for (int i = 0; i < kUrls; ++i) sieve->Push(TestUrl(kUrls + i));
  producer.Done();
  for (std::thread& t : consumers) t.join();
  ASSERT_EQ(got.size(), static_cast<size_t>(kUrls / 2 + kUrls));
  for (const std::string& url : got) EXPECT_EQ(got.count(url), 1u) << url;
  const SieveStats stats = sieve->Stats();
  EXPECT_EQ(stats.queued, 0u);
  EXPECT_EQ(stats.producers, 0u);
  EXPECT_TRUE(sieve->IsFinished());
}

TEST(ProducerTest, TheLastOfSeveralProducersEndsTheConsumers) {
  ScratchDir dir;
  auto sieve = MakeSieve(dir);
  sieve->AddProducer();
  sieve->AddProducer();
  std::atomic<int> popped{0};
  std::atomic<bool> ended{false};
  std::thread consumer([&] {
    while (std::optional<std::string> url = sieve->Pop()) {
      ++popped;
      sieve->MarkDone(*url);
    }
    ended = true;
  });
  sieve->Push(TestUrl(1));
  sieve->ProducerDone();
  // One producer is still open: the consumer drains the queue and waits.
  while (popped.load() < 1) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(ended.load());
  EXPECT_FALSE(sieve->IsFinished());
  sieve->Push(TestUrl(2));
  sieve->ProducerDone();
  consumer.join();
  EXPECT_EQ(popped.load(), 2);
  EXPECT_TRUE(sieve->IsFinished());
}

TEST(ProducerTest, PopForTimesOutWhileAProducerIsOpenAndCloseEndsTheWait) {
  ScratchDir dir;
  auto sieve = MakeSieve(dir);
  Sieve::Producer producer(*sieve);
  EXPECT_FALSE(sieve->PopFor(std::chrono::milliseconds(10)).has_value());
  EXPECT_FALSE(sieve->IsFinished());  // a timeout, not the end
  std::thread consumer([&] { EXPECT_FALSE(sieve->Pop().has_value()); });
  sieve->Close();
  consumer.join();
  EXPECT_TRUE(sieve->IsFinished());
}

TEST(ProducerTest, AMovedHandleClosesItsProducerOnce) {
  ScratchDir dir;
  auto sieve = MakeSieve(dir);
  {
    Sieve::Producer first(*sieve);
    Sieve::Producer second = std::move(first);
    EXPECT_EQ(sieve->Stats().producers, 1u);
    first.Done();  // moved from: no effect
    EXPECT_EQ(sieve->Stats().producers, 1u);
  }
  EXPECT_EQ(sieve->Stats().producers, 0u);
  EXPECT_TRUE(sieve->IsFinished());
}

}  // namespace
}  // namespace sieve
