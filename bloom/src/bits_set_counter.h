// The maintained count of set bits: 64 cache-line-padded atomic stripes, so
// that threads adding to different parts of the filter do not fight over one
// counter, and reading the total is 64 loads instead of a scan of the filter.
#ifndef BLOOM_SRC_BITS_SET_COUNTER_H_
#define BLOOM_SRC_BITS_SET_COUNTER_H_

#include <array>
#include <atomic>
#include <cstdint>

namespace bloom {

class BitsSetCounter {
 public:
  static constexpr uint64_t kStripes = 64;

  // `hint` spreads writers (any value derived from the position is fine).
  void Add(uint64_t hint, uint64_t delta) {
    stripes_[hint % kStripes].value.fetch_add(delta, std::memory_order_relaxed);
  }
  uint64_t Total() const {
    uint64_t total = 0;
    for (const Stripe& s : stripes_) total += s.value.load(std::memory_order_relaxed);
    return total;
  }
  // Not concurrent with Add: used after loading or merging.
  void Reset(uint64_t total) {
    for (Stripe& s : stripes_) s.value.store(0, std::memory_order_relaxed);
    stripes_[0].value.store(total, std::memory_order_relaxed);
  }

 private:
  struct alignas(64) Stripe {
    std::atomic<uint64_t> value{0};
  };
  std::array<Stripe, kStripes> stripes_;
};

}  // namespace bloom

#endif  // BLOOM_SRC_BITS_SET_COUNTER_H_
