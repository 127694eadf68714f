// The measured false-positive rate at n keys, over 1e6 keys never inserted,
// is at most 1.15 p and at least p / 3, for both layouts, and
// agrees with the layout's formula (params.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "bloom/filter.h"
#include "gtest/gtest.h"
#include "keys.h"

namespace bloom {
namespace {

constexpr uint64_t kNegativeQueries = bloom_test::Scaled(1'000'000);

double MeasureFpRate(const BloomFilter& filter) {
  uint64_t false_positives = 0;
  constexpr uint64_t kBatch = 4096;
  bool out[kBatch];
  for (uint64_t start = 0; start < kNegativeQueries; start += kBatch) {
    const std::vector<std::string> keys = bloom_test::Keys("absent", start, start + kBatch);
    const std::vector<std::string_view> views = bloom_test::Views(keys);
    filter.MayContainBatch(views, absl::MakeSpan(out, kBatch));
    for (bool b : out) false_positives += b;
  }
  return static_cast<double>(false_positives) / static_cast<double>(kNegativeQueries);
}

using Case = std::tuple<Layout, double, uint64_t>;  // layout, p, n

class FpRateTest : public testing::TestWithParam<Case> {};

TEST_P(FpRateTest, MeasuredRateWithinBounds) {
  const auto [layout, p, n] = GetParam();
  FilterOptions options;
  options.expected_count = n;
  options.fp_rate = p;
  options.layout = layout;
  absl::StatusOr<BloomFilter> filter = BloomFilter::Create(options);
  ASSERT_TRUE(filter.ok()) << filter.status();
  const std::vector<std::string> keys = bloom_test::Keys("present", 0, n);
  filter->AddBatch(bloom_test::Views(keys));

  const double measured = MeasureFpRate(*filter);
  const double theory =
      FpRateFor(layout, filter->BitCount(), static_cast<double>(n), filter->HashCount());
  std::printf("%s n=%llu p=%g: bits/key %.2f k=%u theory %.5f measured %.5f\n", LayoutName(layout),
              static_cast<unsigned long long>(n), p,
              static_cast<double>(filter->BitCount()) / static_cast<double>(n), filter->HashCount(),
              theory, measured);
  EXPECT_LE(measured, p * 1.15);
  EXPECT_GE(measured, p / 3);
  if (n >= 1'000'000) {
    // Large filters: the formula should predict the measurement within the
    // count noise (4 standard deviations of a Poisson count; at least 12%).
    const double expected_hits = theory * static_cast<double>(kNegativeQueries);
    EXPECT_NEAR(measured / theory, 1.0, std::max(0.12, 4.0 / std::sqrt(expected_hits)));
  }
}

INSTANTIATE_TEST_SUITE_P(AllLayouts, FpRateTest,
                         testing::Combine(testing::Values(Layout::kBlocked, Layout::kClassic),
                                          testing::Values(0.1, 0.01, 0.001),
                                          testing::Values(uint64_t{10'000}, uint64_t{1'000'000})),
                         [](const testing::TestParamInfo<Case>& info) {
                           return std::string(LayoutName(std::get<0>(info.param))) + "_p" +
                                  std::to_string(static_cast<int>(1 / std::get<1>(info.param))) +
                                  "_n" + std::to_string(std::get<2>(info.param));
                         });

}  // namespace
}  // namespace bloom
