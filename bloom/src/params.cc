// Sizing and false-positive formulas; the math is documented in bloom/params.h.
#include "bloom/params.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace bloom {
namespace {

constexpr double kLn2 = 0.69314718055994530942;

absl::Status ValidateTarget(uint64_t expected_count, double fp_rate) {
  if (expected_count < 1) {
    return absl::InvalidArgumentError("bloom: expected_count must be at least 1");
  }
  if (!(fp_rate > 0.0 && fp_rate < 1.0)) {  // also rejects NaN
    return absl::InvalidArgumentError(
        absl::StrCat("bloom: fp_rate must be in (0, 1), got ", fp_rate));
  }
  return absl::OkStatus();
}

absl::Status TooLarge(double bits) {
  return absl::OutOfRangeError(absl::StrCat("bloom: filter would need ", bits / 8.0,
                                            " bytes, more than the maximum of ", kMaxBits / 8,
                                            " bytes (kMaxBits)"));
}

uint64_t RoundUp(uint64_t value, uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// P(D = d), d = 0..k: the number of distinct positions among k uniform draws
// from `slots` slots (the occupancy recursion).
std::vector<double> DistinctCountDistribution(uint32_t k, double slots) {
  std::vector<double> p(k + 1, 0.0);
  p[0] = 1.0;
  for (uint32_t draw = 0; draw < k; ++draw) {
    for (uint32_t d = draw + 1; d >= 1; --d) {
      p[d] = p[d] * (d / slots) + p[d - 1] * ((slots - d + 1) / slots);
    }
    p[0] = 0.0;
  }
  return p;
}

// E_D[f^D] for the distinct-count distribution `dist`.
double ExpectedPower(const std::vector<double>& dist, double f) {
  double sum = 0.0;
  double power = 1.0;
  for (size_t d = 0; d < dist.size(); ++d) {
    sum += dist[d] * power;
    power *= f;
  }
  return sum;
}

}  // namespace

const char* LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kBlocked:
      return "blocked";
    case Layout::kClassic:
      return "classic";
  }
  return "unknown";
}

double ClassicBitsPerKey(double fp_rate) { return -std::log(fp_rate) / (kLn2 * kLn2); }

double ClassicFpRate(uint64_t bits, double count, uint32_t hash_count) {
  if (count <= 0) return 0.0;
  if (bits == 0 || hash_count == 0) return 1.0;
  const double k = hash_count;
  return std::pow(-std::expm1(-k * count / static_cast<double>(bits)), k);
}

double BlockedFpRate(uint64_t bits, double count, uint32_t hash_count) {
  if (count <= 0) return 0.0;
  const uint64_t blocks = bits / kBlockBits;
  if (blocks == 0 || hash_count == 0) return 1.0;
  const double lambda = count / static_cast<double>(blocks);
  const double slots = static_cast<double>(kBlockBits);
  const std::vector<double> distinct = DistinctCountDistribution(hash_count, slots);
  // log(1 - 1/B) per probe: a bit stays clear after j keys with prob (1-1/B)^(jk).
  const double log_miss = std::log1p(-1.0 / slots) * hash_count;
  // Sum the Poisson terms around the mean, far enough into both tails.
  const double spread = 12.0 * std::sqrt(lambda) + 30.0;
  const uint64_t lo = static_cast<uint64_t>(std::max(0.0, lambda - spread));
  const uint64_t hi = static_cast<uint64_t>(lambda + spread);
  double rate = 0.0;
  for (uint64_t j = lo; j <= hi; ++j) {
    const double jd = static_cast<double>(j);
    int sign = 0;  // lgamma_r: std::lgamma writes the global signgam (a data race)
    const double log_poisson = jd * std::log(lambda) - lambda - ::lgamma_r(jd + 1.0, &sign);
    const double fill = -std::expm1(jd * log_miss);
    rate += std::exp(log_poisson) * ExpectedPower(distinct, fill);
  }
  return std::min(rate, 1.0);
}

double FpRateFor(Layout layout, uint64_t bits, double count, uint32_t hash_count) {
  return layout == Layout::kBlocked ? BlockedFpRate(bits, count, hash_count)
                                    : ClassicFpRate(bits, count, hash_count);
}

absl::StatusOr<FilterShape> ClassicShape(uint64_t expected_count, double fp_rate) {
  if (absl::Status s = ValidateTarget(expected_count, fp_rate); !s.ok()) return s;
  const double n = static_cast<double>(expected_count);
  const double ideal_bits = std::ceil(n * ClassicBitsPerKey(fp_rate));
  if (ideal_bits > static_cast<double>(kMaxBits)) return TooLarge(ideal_bits);
  FilterShape shape;
  shape.bits = RoundUp(std::max<uint64_t>(static_cast<uint64_t>(ideal_bits), 64), 64);
  const double k = std::round(static_cast<double>(shape.bits) / n * kLn2);
  shape.hash_count = static_cast<uint32_t>(std::clamp(k, 1.0, double{kMaxHashCount}));
  // Rounding k can push the formula a hair above p: grow m until it is not.
  while (ClassicFpRate(shape.bits, n, shape.hash_count) > fp_rate) {
    shape.bits = RoundUp(shape.bits + std::max<uint64_t>(64, shape.bits / 1000), 64);
    if (shape.bits > kMaxBits) return TooLarge(static_cast<double>(shape.bits));
  }
  return shape;
}

absl::StatusOr<FilterShape> BlockedShape(uint64_t expected_count, double fp_rate) {
  if (absl::Status s = ValidateTarget(expected_count, fp_rate); !s.ok()) return s;
  const double n = static_cast<double>(expected_count);
  const double classic_bits = n * ClassicBitsPerKey(fp_rate);
  if (classic_bits > static_cast<double>(kMaxBits)) return TooLarge(classic_bits);
  const uint64_t max_blocks = kMaxBits / kBlockBits;
  const uint32_t classic_k =
      static_cast<uint32_t>(std::max(1.0, std::round(ClassicBitsPerKey(fp_rate) * kLn2)));
  // The blocked rate is never below the classic one at equal m, so 3/4 of the
  // classic size is a safe lower end for the search.
  const uint64_t classic_blocks =
      std::max<uint64_t>(1, static_cast<uint64_t>(classic_bits) / kBlockBits);
  FilterShape best{0, 0};
  // The best k for the blocked layout is at or a little below the classic k.
  for (uint32_t k = std::max<uint32_t>(1, classic_k / 2);
       k <= std::min(kMaxHashCount, classic_k + 2); ++k) {
    // Smallest block count whose rate is <= p: the rate falls as blocks grow.
    uint64_t lo = std::max<uint64_t>(1, classic_blocks * 3 / 4);
    uint64_t hi = std::min(max_blocks, classic_blocks);
    while (BlockedFpRate(hi * kBlockBits, n, k) > fp_rate && hi < max_blocks) {
      lo = hi + 1;
      hi = std::min(max_blocks, hi * 2);
    }
    if (BlockedFpRate(hi * kBlockBits, n, k) > fp_rate) continue;
    lo = std::min(lo, hi);
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (BlockedFpRate(mid * kBlockBits, n, k) <= fp_rate) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    const uint64_t bits = hi * kBlockBits;
    if (best.bits == 0 || bits < best.bits) best = FilterShape{bits, k};
  }
  if (best.bits == 0) return TooLarge(2.0 * classic_bits);
  return best;
}

absl::StatusOr<FilterShape> ShapeFor(Layout layout, uint64_t expected_count, double fp_rate) {
  switch (layout) {
    case Layout::kBlocked:
      return BlockedShape(expected_count, fp_rate);
    case Layout::kClassic:
      return ClassicShape(expected_count, fp_rate);
  }
  return absl::InvalidArgumentError("bloom: unknown layout");
}

}  // namespace bloom
