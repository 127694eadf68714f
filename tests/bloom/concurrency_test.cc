// Concurrency: 4 threads adding and querying one filter at once, no lock.
// Run under TSan in CI. Checks the documented guarantees: no lost bits, no
// false negatives once an add has returned, and for racing InsertIfNew of the
// same new key at least one winner.
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "bloom/counting_filter.h"
#include "bloom/filter.h"
#include "bloom/scalable_filter.h"
#include "gtest/gtest.h"
#include "keys.h"

namespace bloom {
namespace {

constexpr int kThreads = 4;
#ifdef CRAWL_SANITIZED
constexpr uint64_t kKeysPerThread = 20'000;
#else
constexpr uint64_t kKeysPerThread = 100'000;
#endif

template <typename Body>
void RunThreads(Body body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
  for (std::thread& thread : threads) thread.join();
}

FilterOptions Options(Layout layout) {
  FilterOptions options;
  options.expected_count = kThreads * kKeysPerThread;
  options.fp_rate = 0.01;
  options.layout = layout;
  return options;
}

class ConcurrencyTest : public testing::TestWithParam<Layout> {};

TEST_P(ConcurrencyTest, ConcurrentAddsLoseNothingAndMatchSerialFilter) {
  absl::StatusOr<BloomFilter> shared = BloomFilter::Create(Options(GetParam()));
  absl::StatusOr<BloomFilter> serial = BloomFilter::Create(Options(GetParam()));
  ASSERT_TRUE(shared.ok() && serial.ok());
  std::atomic<uint64_t> missing{0};
  RunThreads([&](int t) {
    for (uint64_t i = 0; i < kKeysPerThread; ++i) {
      const std::string key = bloom_test::Key("t" + std::to_string(t), i);
      if (i % 2 == 0) {
        shared->Add(key);
      } else {
        shared->InsertIfNew(key);
      }
      // Our own add has returned: we must see it, and others' reads must not fail.
      if (!shared->MayContain(key)) missing.fetch_add(1);
      shared->MayContain(bloom_test::Key("t" + std::to_string((t + 1) % kThreads), i));
    }
  });
  EXPECT_EQ(missing.load(), 0u);
  for (int t = 0; t < kThreads; ++t) {
    for (uint64_t i = 0; i < kKeysPerThread; ++i) {
      serial->Add(bloom_test::Key("t" + std::to_string(t), i));
    }
  }
  // Same bits as a single-threaded filter: no fetch_or lost another's bits.
  EXPECT_EQ(shared->BitsSet(), serial->BitsSet());
  absl::StatusOr<double> both = EstimateUnionCount(*shared, *serial);
  ASSERT_TRUE(both.ok());
  EXPECT_DOUBLE_EQ(*both, serial->EstimatedCount());
}

TEST_P(ConcurrencyTest, RacingInsertsOfTheSameKeysHaveAtLeastOneWinner) {
  absl::StatusOr<BloomFilter> filter = BloomFilter::Create(Options(GetParam()));
  ASSERT_TRUE(filter.ok());
  const uint64_t keys = kKeysPerThread;
  std::vector<std::atomic<uint8_t>> winners(keys);
  RunThreads([&](int) {
    for (uint64_t i = 0; i < keys; ++i) {
      if (filter->InsertIfNew(bloom_test::Key("same", i))) winners[i].fetch_add(1);
    }
  });
  uint64_t no_winner = 0;
  for (uint64_t i = 0; i < keys; ++i) no_winner += winners[i].load() == 0;
  // A key with no winner was a false positive before anyone inserted it:
  // rate well under p = 1% of keys (the filter is at 1/4 of capacity).
  EXPECT_LT(no_winner, keys / 100);
  for (uint64_t i = 0; i < keys; ++i) ASSERT_TRUE(filter->MayContain(bloom_test::Key("same", i)));
}

TEST_P(ConcurrencyTest, ScalableFilterGrowsUnderConcurrentInserts) {
  FilterOptions options = Options(GetParam());
  options.expected_count = kKeysPerThread / 8;  // forces several growths mid-run
  absl::StatusOr<ScalableBloomFilter> filter = ScalableBloomFilter::Create(options);
  ASSERT_TRUE(filter.ok());
  std::atomic<uint64_t> missing{0};
  RunThreads([&](int t) {
    for (uint64_t i = 0; i < kKeysPerThread; ++i) {
      const std::string key = bloom_test::Key("g" + std::to_string(t), i);
      filter->InsertIfNew(key);
      if (!filter->MayContain(key)) missing.fetch_add(1);
      if (i % 1024 == 0) filter->CurrentFpRate();  // stats while growing
    }
  });
  EXPECT_EQ(missing.load(), 0u);
  EXPECT_GE(filter->StageCount(), 5u);
  // No stage filled on while a growth waited for the exclusive lock (CI saw a
  // compound rate of 1.0009% under TSan when it did).
  EXPECT_LE(filter->InsertedCount(), filter->Capacity() + kThreads * filter->StageCount());
  for (int t = 0; t < kThreads; ++t) {
    for (uint64_t i = 0; i < kKeysPerThread; ++i) {
      ASSERT_TRUE(filter->MayContain(bloom_test::Key("g" + std::to_string(t), i)));
    }
  }
  EXPECT_LT(filter->CurrentFpRate(), options.fp_rate);
}

TEST_P(ConcurrencyTest, BatchedOperationsFromManyThreads) {
  absl::StatusOr<BloomFilter> filter = BloomFilter::Create(Options(GetParam()));
  ASSERT_TRUE(filter.ok());
  std::atomic<uint64_t> missing{0};
  RunThreads([&](int t) {
    const std::vector<std::string> keys =
        bloom_test::Keys("b" + std::to_string(t), 0, kKeysPerThread);
    const std::vector<std::string_view> views = bloom_test::Views(keys);
    std::unique_ptr<bool[]> out(new bool[keys.size()]);
    filter->InsertIfNewBatch(views, absl::MakeSpan(out.get(), keys.size()));
    filter->MayContainBatch(views, absl::MakeSpan(out.get(), keys.size()));
    for (size_t i = 0; i < keys.size(); ++i) missing.fetch_add(!out[i]);
  });
  EXPECT_EQ(missing.load(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Layouts, ConcurrencyTest,
                         testing::Values(Layout::kBlocked, Layout::kClassic),
                         [](const testing::TestParamInfo<Layout>& info) {
                           return std::string(LayoutName(info.param));
                         });

TEST(Concurrency, CountingFilterAddRemoveFromManyThreads) {
  FilterOptions options;
  options.expected_count = kThreads * kKeysPerThread;
  absl::StatusOr<CountingBloomFilter> filter = CountingBloomFilter::Create(options);
  ASSERT_TRUE(filter.ok());
  for (uint64_t i = 0; i < kKeysPerThread; ++i) filter->Add(bloom_test::Key("keep", i));
  RunThreads([&](int t) {
    for (uint64_t i = 0; i < kKeysPerThread / 4; ++i) {
      const std::string key = bloom_test::Key("c" + std::to_string(t), i);
      filter->Add(key);
      filter->MayContain(bloom_test::Key("keep", i));
      filter->Remove(key);
    }
  });
  for (uint64_t i = 0; i < kKeysPerThread; ++i) {
    ASSERT_TRUE(filter->MayContain(bloom_test::Key("keep", i)));
  }
}

}  // namespace
}  // namespace bloom
