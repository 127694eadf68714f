// n^ from the number of set bits, for each layout (formulas in bloom/filter.h).
#ifndef BLOOM_SRC_FILL_ESTIMATOR_H_
#define BLOOM_SRC_FILL_ESTIMATOR_H_

#include <cmath>
#include <cstdint>
#include <limits>

#include "bloom/params.h"

namespace bloom {

inline double CountFromFill(Layout layout, uint64_t bits, uint32_t k, uint64_t bits_set) {
  if (bits_set == 0) return 0.0;
  if (bits_set >= bits) return std::numeric_limits<double>::infinity();
  const double m = static_cast<double>(bits);
  const double log_clear = std::log1p(-static_cast<double>(bits_set) / m);  // ln(1 - X/m)
  if (layout == Layout::kClassic) return -(m / k) * log_clear;
  const double b = static_cast<double>(kBlockBits);
  const double bits_per_key_in_block = -std::expm1(k * std::log1p(-1.0 / b));  // 1-(1-1/B)^k
  return -(m / b) * log_clear / bits_per_key_in_block;
}

// The rate CurrentFpRate() reports for a filter with `bits_set` bits set.
inline double FpRateFromFill(Layout layout, uint64_t bits, uint32_t k, uint64_t bits_set) {
  const double n = CountFromFill(layout, bits, k, bits_set);
  if (n == std::numeric_limits<double>::infinity()) return 1.0;
  return FpRateFor(layout, bits, n, k);
}

// The fewest set bits at which that rate exceeds `rate` (bits + 1 if it never
// does). The rate grows with the set bits, so a binary search finds it.
inline uint64_t BitsSetAboveRate(Layout layout, uint64_t bits, uint32_t k, double rate) {
  uint64_t low = 0;  // invariant: the rate at `low` is <= rate, at `high` above it
  uint64_t high = bits + 1;
  while (high - low > 1) {
    const uint64_t mid = low + (high - low) / 2;
    if (FpRateFromFill(layout, bits, k, mid) > rate) {
      high = mid;
    } else {
      low = mid;
    }
  }
  return high;
}

}  // namespace bloom

#endif  // BLOOM_SRC_FILL_ESTIMATOR_H_
