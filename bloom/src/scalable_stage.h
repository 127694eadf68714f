// One stage of a ScalableBloomFilter: a filter and how many new keys it took.
#ifndef BLOOM_SRC_SCALABLE_STAGE_H_
#define BLOOM_SRC_SCALABLE_STAGE_H_

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>

#include "bloom/filter.h"
#include "bloom/scalable_filter.h"

namespace bloom {

// Upper bound on GrowthOptions::max_stages (also bounds what Load accepts).
inline constexpr uint32_t kMaxScalableStages = 64;

// Keys stage `index` takes: initial * growth^index (capped at 1e18). Load checks
// a file's stage table against it, so a corrupted header cannot make the next
// Add open an absurdly large stage.
inline uint64_t StageCapacity(uint64_t initial, double growth_factor, size_t index) {
  const double capacity =
      static_cast<double>(initial) * std::pow(growth_factor, static_cast<double>(index));
  if (!(capacity >= 0.0)) return 0;  // NaN from a corrupted growth factor: no stage matches
  return static_cast<uint64_t>(std::min(capacity, 1e18));
}

struct ScalableBloomFilter::Stage {
  Stage(BloomFilter f, uint64_t c, uint64_t i = 0)
      : filter(std::move(f)), capacity(c), inserted(i) {}
  BloomFilter filter;
  uint64_t capacity;               // new keys this stage takes before the next opens
  std::atomic<uint64_t> inserted;  // InsertIfNew calls that returned true here
};

}  // namespace bloom

#endif  // BLOOM_SRC_SCALABLE_STAGE_H_
