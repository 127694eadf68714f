// Never a false negative: every one of 1e6 added keys answers true, in every
// layout and variant, through the single and the batched calls.
#include <string>
#include <vector>

#include "bloom/counting_filter.h"
#include "bloom/filter.h"
#include "bloom/scalable_filter.h"
#include "gtest/gtest.h"
#include "keys.h"

namespace bloom {
namespace {

constexpr uint64_t kKeys = bloom_test::Scaled(1'000'000);

FilterOptions Options(Layout layout, uint64_t n) {
  FilterOptions options;
  options.expected_count = n;
  options.fp_rate = 0.01;
  options.layout = layout;
  return options;
}

uint64_t CountMissing(const std::vector<bool>& answers) {
  uint64_t missing = 0;
  for (bool b : answers) missing += !b;
  return missing;
}

class NoFalseNegativeTest : public testing::TestWithParam<Layout> {};

TEST_P(NoFalseNegativeTest, SingleCalls) {
  absl::StatusOr<BloomFilter> filter = BloomFilter::Create(Options(GetParam(), kKeys));
  ASSERT_TRUE(filter.ok());
  for (uint64_t i = 0; i < kKeys; ++i) filter->Add(bloom_test::Key("k", i));
  uint64_t missing = 0;
  for (uint64_t i = 0; i < kKeys; ++i) missing += !filter->MayContain(bloom_test::Key("k", i));
  EXPECT_EQ(missing, 0u);
}

TEST_P(NoFalseNegativeTest, BatchedCalls) {
  absl::StatusOr<BloomFilter> filter = BloomFilter::Create(Options(GetParam(), kKeys));
  ASSERT_TRUE(filter.ok());
  const std::vector<std::string> keys = bloom_test::Keys("k", 0, kKeys);
  const std::vector<std::string_view> views = bloom_test::Views(keys);
  std::unique_ptr<bool[]> inserted(new bool[kKeys]);
  filter->InsertIfNewBatch(views, absl::MakeSpan(inserted.get(), kKeys));
  std::unique_ptr<bool[]> present(new bool[kKeys]);
  filter->MayContainBatch(views, absl::MakeSpan(present.get(), kKeys));
  uint64_t missing = 0;
  uint64_t new_keys = 0;
  for (uint64_t i = 0; i < kKeys; ++i) {
    missing += !present[i];
    new_keys += inserted[i];
  }
  EXPECT_EQ(missing, 0u);
  // Only false positives at insert time report "seen": about p/2 on average.
  EXPECT_GT(new_keys, kKeys * 99 / 100);
  // Batched and single lookups agree key by key.
  for (uint64_t i = 0; i < kKeys; i += 997) EXPECT_TRUE(filter->MayContain(views[i]));
}

TEST_P(NoFalseNegativeTest, ScalableFilterAcrossGrowth) {
  // Sized for 1/16 of the keys: the filter grows through 5 stages.
  absl::StatusOr<ScalableBloomFilter> filter =
      ScalableBloomFilter::Create(Options(GetParam(), kKeys / 16));
  ASSERT_TRUE(filter.ok());
  for (uint64_t i = 0; i < kKeys; ++i) filter->Add(bloom_test::Key("k", i));
  EXPECT_GE(filter->StageCount(), 5u);
  uint64_t missing = 0;
  for (uint64_t i = 0; i < kKeys; ++i) missing += !filter->MayContain(bloom_test::Key("k", i));
  EXPECT_EQ(missing, 0u);
}

INSTANTIATE_TEST_SUITE_P(Layouts, NoFalseNegativeTest,
                         testing::Values(Layout::kBlocked, Layout::kClassic),
                         [](const testing::TestParamInfo<Layout>& info) {
                           return std::string(LayoutName(info.param));
                         });

TEST(NoFalseNegative, CountingFilterAfterRemovals) {
  absl::StatusOr<CountingBloomFilter> filter =
      CountingBloomFilter::Create(Options(Layout::kClassic, kKeys));
  ASSERT_TRUE(filter.ok());
  for (uint64_t i = 0; i < kKeys; ++i) filter->Add(bloom_test::Key("k", i));
  // Remove every other key: the rest must all still be present.
  for (uint64_t i = 0; i < kKeys; i += 2) EXPECT_TRUE(filter->Remove(bloom_test::Key("k", i)));
  std::vector<bool> answers;
  for (uint64_t i = 1; i < kKeys; i += 2)
    answers.push_back(filter->MayContain(bloom_test::Key("k", i)));
  EXPECT_EQ(CountMissing(answers), 0u);
}

}  // namespace
}  // namespace bloom
