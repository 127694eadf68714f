// One stage of a ScalableBloomFilter: a filter and how many new keys it took.
#ifndef BLOOM_SRC_SCALABLE_STAGE_H_
#define BLOOM_SRC_SCALABLE_STAGE_H_

#include <atomic>
#include <cstdint>

#include "bloom/filter.h"
#include "bloom/scalable_filter.h"

namespace bloom {

// Upper bound on GrowthOptions::max_stages (also bounds what Load accepts).
inline constexpr uint32_t kMaxScalableStages = 64;

struct ScalableBloomFilter::Stage {
  Stage(BloomFilter f, uint64_t c, uint64_t i = 0)
      : filter(std::move(f)), capacity(c), inserted(i) {}
  BloomFilter filter;
  uint64_t capacity;               // new keys this stage takes before the next opens
  std::atomic<uint64_t> inserted;  // InsertIfNew calls that returned true here
};

}  // namespace bloom

#endif  // BLOOM_SRC_SCALABLE_STAGE_H_
