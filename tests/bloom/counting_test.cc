// Counting filter: removal never makes a present key look absent, including
// the shared-counters example ("a" and "b" share a counter; removing "a" must
// leave "b" present) and saturated counters, which are never decremented.
#include <algorithm>
#include <set>
#include <string>

#include "bloom/counting_filter.h"
#include "gtest/gtest.h"
#include "keys.h"

namespace bloom {
namespace {

CountingBloomFilter Make(uint64_t n, double p) {
  FilterOptions options;
  options.expected_count = n;
  options.fp_rate = p;
  absl::StatusOr<CountingBloomFilter> filter = CountingBloomFilter::Create(options);
  EXPECT_TRUE(filter.ok());
  return *std::move(filter);
}

bool ShareACounter(const CountingBloomFilter& f, std::string_view x, std::string_view y) {
  const std::vector<uint64_t> a = f.CounterIndexes(HashKey(x));
  const std::vector<uint64_t> b = f.CounterIndexes(HashKey(y));
  return std::any_of(a.begin(), a.end(),
                     [&](uint64_t i) { return std::find(b.begin(), b.end(), i) != b.end(); });
}

TEST(CountingFilter, SharedCountersSurviveRemoval) {
  // A filter small enough (n = 2 at p = 0.5: a few dozen counters) that "a"
  // and "b" share at least one counter.
  CountingBloomFilter filter = Make(2, 0.5);
  ASSERT_TRUE(ShareACounter(filter, "a", "b"));
  filter.Add("a");
  filter.Add("b");
  EXPECT_TRUE(filter.MayContain("a"));
  EXPECT_TRUE(filter.MayContain("b"));
  EXPECT_TRUE(filter.Remove("a"));
  EXPECT_TRUE(filter.MayContain("b"));  // the shared counter went 2 -> 1, not 0
  EXPECT_TRUE(filter.Remove("b"));
  EXPECT_EQ(filter.NonZeroCounters(), 0u);  // both gone: every counter back to zero
  EXPECT_FALSE(filter.MayContain("a"));
  EXPECT_FALSE(filter.MayContain("b"));
}

TEST(CountingFilter, SaturatedCountersAreNeverDecremented) {
  CountingBloomFilter filter = Make(2, 0.5);
  ASSERT_TRUE(ShareACounter(filter, "a", "b"));
  for (int i = 0; i < 40; ++i) filter.Add("a");  // saturates a's counters at 15
  filter.Add("b");
  EXPECT_GT(filter.SaturatedCounters(), 0u);
  for (uint64_t index : filter.CounterIndexes(HashKey("a"))) {
    EXPECT_EQ(filter.CounterValue(index), CountingBloomFilter::kCounterMax);
  }
  // Removing "a" more often than it could be counted must not free "b".
  for (int i = 0; i < 40; ++i) filter.Remove("a");
  EXPECT_TRUE(filter.MayContain("b"));
  EXPECT_TRUE(filter.MayContain("a"));  // saturated: stays (a false positive now)
}

TEST(CountingFilter, RemovingAnAbsentKeyChangesNothing) {
  CountingBloomFilter filter = Make(1000, 0.01);
  filter.Add("present");
  const uint64_t before = filter.NonZeroCounters();
  EXPECT_FALSE(filter.Remove("absent"));
  EXPECT_EQ(filter.NonZeroCounters(), before);
  EXPECT_TRUE(filter.MayContain("present"));
}

TEST(CountingFilter, AddRemoveCyclesKeepOthers) {
  CountingBloomFilter filter = Make(20'000, 0.01);
  EXPECT_EQ(filter.MemoryBytes() * 2, filter.CounterCount());
  for (uint64_t i = 0; i < 10'000; ++i) filter.Add(bloom_test::Key("keep", i));
  for (int round = 0; round < 3; ++round) {
    for (uint64_t i = 0; i < 10'000; ++i) filter.Add(bloom_test::Key("churn", i));
    for (uint64_t i = 0; i < 10'000; ++i) filter.Remove(bloom_test::Key("churn", i));
  }
  for (uint64_t i = 0; i < 10'000; ++i) ASSERT_TRUE(filter.MayContain(bloom_test::Key("keep", i)));
  // The churned keys are mostly gone again (only false positives remain).
  uint64_t still = 0;
  for (uint64_t i = 0; i < 10'000; ++i) still += filter.MayContain(bloom_test::Key("churn", i));
  EXPECT_LT(still, 10'000 * 0.02);
}

TEST(CountingFilter, InvalidOptionsAreErrors) {
  FilterOptions options;
  EXPECT_EQ(CountingBloomFilter::Create(options).status().code(),
            absl::StatusCode::kInvalidArgument);
  options.expected_count = uint64_t{1} << 62;
  options.fp_rate = 0.001;
  EXPECT_EQ(CountingBloomFilter::Create(options).status().code(), absl::StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace bloom
