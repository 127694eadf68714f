// Sizing math: the classic formulas, the blocked search, the 1e9-URL figures,
// and argument validation (errors, never UB).
#include "bloom/params.h"

#include <cmath>
#include <limits>

#include "bloom/filter.h"
#include "gtest/gtest.h"

namespace bloom {
namespace {

TEST(ClassicShape, MatchesTextbookFormula) {
  absl::StatusOr<FilterShape> s = ClassicShape(1'000'000, 0.01);
  ASSERT_TRUE(s.ok()) << s.status();
  // m = -n ln p / (ln 2)^2 = 9,585,059 bits; k = round(9.585 * ln 2) = 7.
  EXPECT_NEAR(static_cast<double>(s->bits), 9'585'059.0, 9'585'059.0 * 0.002);
  EXPECT_EQ(s->hash_count, 7u);
  EXPECT_EQ(s->bits % 64, 0u);
  EXPECT_LE(ClassicFpRate(s->bits, 1'000'000, s->hash_count), 0.01);
}

TEST(ClassicFpRate, InverseOfSizing) {
  // (1 - e^(-kn/m))^k for m/n = 10, k = 7: 0.819%.
  EXPECT_NEAR(ClassicFpRate(10'000'000, 1'000'000, 7), 0.008194, 0.00001);
  EXPECT_EQ(ClassicFpRate(1000, 0, 3), 0.0);
  EXPECT_EQ(ClassicFpRate(0, 10, 3), 1.0);
}

TEST(BlockedShape, NeedsSomewhatMoreBitsThanClassic) {
  for (double p : {0.1, 0.01, 0.001, 0.0001}) {
    absl::StatusOr<FilterShape> blocked = BlockedShape(1'000'000, p);
    absl::StatusOr<FilterShape> classic = ClassicShape(1'000'000, p);
    ASSERT_TRUE(blocked.ok() && classic.ok());
    EXPECT_EQ(blocked->bits % kBlockBits, 0u);
    EXPECT_LE(BlockedFpRate(blocked->bits, 1'000'000, blocked->hash_count), p);
    // Smallest: one block less would miss the target at this k.
    EXPECT_GT(BlockedFpRate(blocked->bits - kBlockBits, 1'000'000, blocked->hash_count), p);
    const double ratio = static_cast<double>(blocked->bits) / static_cast<double>(classic->bits);
    EXPECT_GE(ratio, 1.0) << "p=" << p;
    EXPECT_LE(ratio, 1.25) << "p=" << p;
  }
}

TEST(BlockedFpRate, ExceedsClassicAtEqualSize) {
  // Uneven block loads cost rate: at 10 bits/key and k = 7.
  const double blocked = BlockedFpRate(10'000'000 / 512 * 512, 1'000'000, 7);
  const double classic = ClassicFpRate(10'000'000 / 512 * 512, 1'000'000, 7);
  EXPECT_GT(blocked, classic * 1.1);
  EXPECT_LT(blocked, classic * 2.0);
}

TEST(Shape, BillionUrlFigures) {
  // The README's figures: 1e9 URLs need ~1.2 GB at 1% and ~2.4 GB at 0.01%.
  absl::StatusOr<FilterShape> one_percent = ClassicShape(1'000'000'000, 0.01);
  absl::StatusOr<FilterShape> hundredth = ClassicShape(1'000'000'000, 0.0001);
  ASSERT_TRUE(one_percent.ok() && hundredth.ok());
  EXPECT_NEAR(one_percent->MemoryBytes() / 1e9, 1.198, 0.01);
  EXPECT_NEAR(hundredth->MemoryBytes() / 1e9, 2.396, 0.01);
  // "1e9 URLs at 0.01% in 18 MB" is wrong by about 130x.
  EXPECT_NEAR(hundredth->MemoryBytes() / 18e6, 133, 2);
  absl::StatusOr<FilterShape> blocked = BlockedShape(1'000'000'000, 0.0001);
  ASSERT_TRUE(blocked.ok());
  EXPECT_LT(blocked->MemoryBytes() / 1e9, 3.0);
}

TEST(Shape, BillionUrlFilterIsConstructible) {
  // mmap is lazy: creating the 1.2 GB filter costs no memory until touched.
  FilterOptions options;
  options.expected_count = 1'000'000'000;
  options.fp_rate = 0.01;
  absl::StatusOr<BloomFilter> filter = BloomFilter::Create(options);
  ASSERT_TRUE(filter.ok()) << filter.status();
  EXPECT_GT(filter->MemoryBytes(), 1'200'000'000u);
  EXPECT_LT(filter->MemoryBytes(), 1'400'000'000u);
  EXPECT_TRUE(filter->InsertIfNew("https://example.com/"));
  EXPECT_TRUE(filter->MayContain("https://example.com/"));
}

TEST(Shape, InvalidArgumentsAreErrors) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (Layout layout : {Layout::kBlocked, Layout::kClassic}) {
    EXPECT_EQ(ShapeFor(layout, 0, 0.01).status().code(), absl::StatusCode::kInvalidArgument);
    for (double p : {0.0, 1.0, -0.5, 1.5, nan}) {
      EXPECT_EQ(ShapeFor(layout, 1000, p).status().code(), absl::StatusCode::kInvalidArgument) << p;
    }
    // 2^63 keys at 1e-9 would need ~2.7e20 bits: refused, not overflowed.
    EXPECT_EQ(ShapeFor(layout, uint64_t{1} << 63, 1e-9).status().code(),
              absl::StatusCode::kOutOfRange);
    EXPECT_EQ(ShapeFor(layout, std::numeric_limits<uint64_t>::max(), 0.5).status().code(),
              absl::StatusCode::kOutOfRange);
  }
  FilterOptions options;  // expected_count defaults to 0: invalid
  EXPECT_EQ(BloomFilter::Create(options).status().code(), absl::StatusCode::kInvalidArgument);
  options.expected_count = 10;
  options.layout = static_cast<Layout>(7);
  EXPECT_FALSE(BloomFilter::Create(options).ok());
}

TEST(Shape, TinyFiltersAreValid) {
  for (Layout layout : {Layout::kBlocked, Layout::kClassic}) {
    absl::StatusOr<FilterShape> s = ShapeFor(layout, 1, 0.5);
    ASSERT_TRUE(s.ok());
    EXPECT_GE(s->hash_count, 1u);
    EXPECT_GE(s->bits, 64u);
  }
}

}  // namespace
}  // namespace bloom
