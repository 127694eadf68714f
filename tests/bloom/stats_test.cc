// Statistics: the maintained bits-set counter is exact, the estimated count is
// within 3% of the truth while the fill is under 50%, and the current rate
// follows the measured one.
#include <bit>
#include <cstdio>
#include <sstream>
#include <string>

#include "bloom/filter.h"
#include "gtest/gtest.h"
#include "keys.h"

namespace bloom {
namespace {

class StatsTest : public testing::TestWithParam<Layout> {
 protected:
  BloomFilter Make(uint64_t n, double p) {
    FilterOptions options;
    options.expected_count = n;
    options.fp_rate = p;
    options.layout = GetParam();
    absl::StatusOr<BloomFilter> filter = BloomFilter::Create(options);
    EXPECT_TRUE(filter.ok());
    return *std::move(filter);
  }
};

TEST_P(StatsTest, EmptyFilter) {
  BloomFilter filter = Make(1000, 0.01);
  EXPECT_EQ(filter.BitsSet(), 0u);
  EXPECT_EQ(filter.FillRatio(), 0.0);
  EXPECT_EQ(filter.EstimatedCount(), 0.0);
  EXPECT_EQ(filter.CurrentFpRate(), 0.0);
  EXPECT_EQ(filter.Capacity(), 1000u);
  EXPECT_EQ(filter.MemoryBytes() * 8, filter.BitCount());
  EXPECT_EQ(filter.layout(), GetParam());
}

TEST_P(StatsTest, EstimatedCountWithinThreePercentUnderHalfFill) {
  BloomFilter filter = Make(bloom_test::Scaled(1'000'000), 0.01);
  uint64_t added = 0;
  // Fill sweeps logarithmically up to 3x capacity; check every step below 50%.
  int checked = 0;
  for (uint64_t full_target : {1'000u, 10'000u, 30'000u, 100'000u, 300'000u, 600'000u, 1'000'000u,
                               2'000'000u, 3'000'000u}) {
    const uint64_t target = bloom_test::Scaled(full_target);
    for (; added < target; ++added) filter.Add(bloom_test::Key("s", added));
    const double fill = filter.FillRatio();
    const double estimate = filter.EstimatedCount();
    std::printf("%s n=%llu fill=%.3f estimate=%.0f (%.2f%%)\n", LayoutName(GetParam()),
                static_cast<unsigned long long>(added), fill, estimate,
                100.0 * (estimate / static_cast<double>(added) - 1.0));
    if (fill >= 0.5) continue;
    ++checked;
    EXPECT_NEAR(estimate / static_cast<double>(added), 1.0, 0.03) << "n=" << added;
  }
  EXPECT_GE(checked, 5);
}

TEST_P(StatsTest, BitsSetCounterIsExact) {
  BloomFilter filter = Make(100'000, 0.01);
  for (uint64_t i = 0; i < 100'000; ++i) filter.Add(bloom_test::Key("b", i));
  // A loaded copy recounts by scanning: the maintained counter must agree.
  std::stringstream buffer;
  ASSERT_TRUE(filter.Save(buffer).ok());
  absl::StatusOr<BloomFilter> loaded = BloomFilter::Load(buffer);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(filter.BitsSet(), loaded->BitsSet());
  EXPECT_GT(filter.BitsSet(), 0u);
  // Re-adding changes nothing.
  const uint64_t before = filter.BitsSet();
  for (uint64_t i = 0; i < 1000; ++i) EXPECT_FALSE(filter.InsertIfNew(bloom_test::Key("b", i)));
  EXPECT_EQ(filter.BitsSet(), before);
}

TEST_P(StatsTest, CurrentFpRateTracksMeasurement) {
  BloomFilter filter = Make(200'000, 0.01);
  for (uint64_t i = 0; i < 200'000; ++i) filter.Add(bloom_test::Key("r", i));
  uint64_t false_positives = 0;
  constexpr uint64_t kQueries = 400'000;
  for (uint64_t i = 0; i < kQueries; ++i)
    false_positives += filter.MayContain(bloom_test::Key("x", i));
  const double measured = static_cast<double>(false_positives) / kQueries;
  EXPECT_NEAR(filter.CurrentFpRate() / measured, 1.0, 0.15);
  // Overfilled 2x: the rate climbs well past the target, and says so.
  for (uint64_t i = 200'000; i < 400'000; ++i) filter.Add(bloom_test::Key("r", i));
  EXPECT_GT(filter.CurrentFpRate(), 0.05);
}

INSTANTIATE_TEST_SUITE_P(Layouts, StatsTest, testing::Values(Layout::kBlocked, Layout::kClassic),
                         [](const testing::TestParamInfo<Layout>& info) {
                           return std::string(LayoutName(info.param));
                         });

}  // namespace
}  // namespace bloom
