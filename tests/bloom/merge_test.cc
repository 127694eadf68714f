// Set algebra: merge is a bitwise OR of compatible filters (an error
// otherwise); union and intersection counts are estimated from the fills.
#include <string>

#include "bloom/filter.h"
#include "gtest/gtest.h"
#include "keys.h"

namespace bloom {
namespace {

BloomFilter Make(Layout layout, uint64_t n = 200'000, double p = 0.01) {
  FilterOptions options;
  options.expected_count = n;
  options.fp_rate = p;
  options.layout = layout;
  absl::StatusOr<BloomFilter> filter = BloomFilter::Create(options);
  EXPECT_TRUE(filter.ok());
  return *std::move(filter);
}

class MergeTest : public testing::TestWithParam<Layout> {};

TEST_P(MergeTest, MergedFilterContainsBothSets) {
  BloomFilter a = Make(GetParam());
  BloomFilter b = Make(GetParam());
  for (uint64_t i = 0; i < 50'000; ++i) a.Add(bloom_test::Key("a", i));
  for (uint64_t i = 0; i < 50'000; ++i) b.Add(bloom_test::Key("b", i));
  const uint64_t a_bits = a.BitsSet();
  ASSERT_TRUE(a.Merge(b).ok());
  for (uint64_t i = 0; i < 50'000; ++i) {
    ASSERT_TRUE(a.MayContain(bloom_test::Key("a", i)));
    ASSERT_TRUE(a.MayContain(bloom_test::Key("b", i)));
  }
  EXPECT_GT(a.BitsSet(), a_bits);
  EXPECT_LE(a.BitsSet(), a_bits + b.BitsSet());
  EXPECT_NEAR(a.EstimatedCount(), 100'000, 3'000);
  // Merging again, or with itself, changes nothing.
  const uint64_t merged_bits = a.BitsSet();
  ASSERT_TRUE(a.Merge(b).ok());
  ASSERT_TRUE(a.Merge(a).ok());
  EXPECT_EQ(a.BitsSet(), merged_bits);
}

TEST_P(MergeTest, UnionAndIntersectionEstimates) {
  BloomFilter a = Make(GetParam());
  BloomFilter b = Make(GetParam());
  // a = [0, 80k), b = [40k, 120k): union 120k, intersection 40k.
  for (uint64_t i = 0; i < 80'000; ++i) a.Add(bloom_test::Key("u", i));
  for (uint64_t i = 40'000; i < 120'000; ++i) b.Add(bloom_test::Key("u", i));
  absl::StatusOr<double> union_count = EstimateUnionCount(a, b);
  absl::StatusOr<double> intersection = EstimateIntersectionCount(a, b);
  ASSERT_TRUE(union_count.ok() && intersection.ok());
  EXPECT_NEAR(*union_count, 120'000, 120'000 * 0.03);
  EXPECT_NEAR(*intersection, 40'000, 40'000 * 0.08);
  // Disjoint sets: intersection near zero.
  BloomFilter c = Make(GetParam());
  for (uint64_t i = 0; i < 80'000; ++i) c.Add(bloom_test::Key("v", i));
  absl::StatusOr<double> none = EstimateIntersectionCount(a, c);
  ASSERT_TRUE(none.ok());
  EXPECT_LT(*none, 80'000 * 0.03);
}

INSTANTIATE_TEST_SUITE_P(Layouts, MergeTest, testing::Values(Layout::kBlocked, Layout::kClassic),
                         [](const testing::TestParamInfo<Layout>& info) {
                           return std::string(LayoutName(info.param));
                         });

TEST(Merge, IncompatibleFiltersAreRefused) {
  BloomFilter blocked = Make(Layout::kBlocked);
  BloomFilter classic = Make(Layout::kClassic);
  BloomFilter smaller = Make(Layout::kBlocked, 100'000);
  BloomFilter tighter = Make(Layout::kClassic, 200'000, 0.001);
  blocked.Add("x");
  EXPECT_EQ(blocked.Merge(classic).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(blocked.Merge(smaller).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(classic.Merge(tighter).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(EstimateUnionCount(blocked, classic).ok());
  EXPECT_FALSE(EstimateIntersectionCount(classic, tighter).ok());
  // A refused merge leaves the filter untouched.
  EXPECT_TRUE(blocked.MayContain("x"));
  EXPECT_EQ(classic.BitsSet(), 0u);
}

}  // namespace
}  // namespace bloom
