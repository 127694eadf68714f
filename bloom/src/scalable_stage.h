// One stage of a ScalableBloomFilter: a filter and how many new keys it took.
#ifndef BLOOM_SRC_SCALABLE_STAGE_H_
#define BLOOM_SRC_SCALABLE_STAGE_H_

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>

#include "bloom/filter.h"
#include "bloom/scalable_filter.h"
#include "fill_estimator.h"

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

// A stage is full when it has taken its capacity of new keys, or earlier if
// its set bits already put its rate above its target: a stage's bits at a
// given key count vary by chance, and the compound bound holds for the rates
// the filter reports only if no stage's rate passes its own target.
struct ScalableBloomFilter::Stage {
  Stage(BloomFilter f, uint64_t c, uint64_t i = 0)
      : filter(std::move(f)),
        capacity(c),
        full_at_bits(BitsSetAboveRate(filter.layout(), filter.BitCount(), filter.HashCount(),
                                      filter.TargetFpRate())),
        inserted(i),
        full(i >= capacity || filter.BitsSet() >= full_at_bits) {}

  // Counts one key InsertIfNew added here, and marks the stage full when it
  // is. The set bits (64 loads) are read only near capacity, every
  // capacity / 2^16 keys: a stage overshoots its rate by < 0.1% of it.
  void CountInsert() {
    const uint64_t count = inserted.fetch_add(1, std::memory_order_relaxed) + 1;
    const uint64_t step = std::max<uint64_t>(1, capacity >> 16);
    if (count >= capacity || (count >= capacity - capacity / 8 && count % step == 0 &&
                              filter.BitsSet() >= full_at_bits)) {
      full.store(true, std::memory_order_relaxed);
    }
  }

  BloomFilter filter;
  uint64_t capacity;               // new keys this stage takes before the next opens
  uint64_t full_at_bits;           // set bits at which its rate passes its target
  std::atomic<uint64_t> inserted;  // InsertIfNew calls that returned true here
  std::atomic<bool> full;          // takes no more keys once the next stage opens
};

}  // namespace bloom

#endif  // BLOOM_SRC_SCALABLE_STAGE_H_
