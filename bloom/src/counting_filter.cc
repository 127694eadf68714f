// CountingBloomFilter: 4-bit saturating counters, 16 per 64-bit word, each
// word updated with a compare-and-swap loop (rules in the header).
#include "bloom/counting_filter.h"

#include <atomic>

#include "probes.h"

namespace bloom {
namespace {

constexpr uint64_t kCountersPerWord = 16;
constexpr uint64_t kCounterMask = 0xF;

std::atomic_ref<uint64_t> WordRef(uint64_t* words, uint64_t index) {
  return std::atomic_ref<uint64_t>(words[index / kCountersPerWord]);
}

unsigned Shift(uint64_t index) { return static_cast<unsigned>(index % kCountersPerWord) * 4; }

uint32_t CounterIn(uint64_t word, uint64_t index) {
  return static_cast<uint32_t>((word >> Shift(index)) & kCounterMask);
}

// Applies delta (+1 / -1) unless the counter is saturated (or, for -1, zero).
void Step(uint64_t* words, uint64_t index, int delta) {
  std::atomic_ref<uint64_t> word = WordRef(words, index);
  uint64_t old = word.load(std::memory_order_relaxed);
  for (;;) {
    const uint32_t value = CounterIn(old, index);
    if (value == CountingBloomFilter::kCounterMax) return;  // saturated: frozen forever
    if (delta < 0 && value == 0) return;
    const uint64_t unit = uint64_t{1} << Shift(index);
    const uint64_t updated = delta > 0 ? old + unit : old - unit;
    if (word.compare_exchange_weak(old, updated, std::memory_order_relaxed)) return;
  }
}

}  // namespace

absl::StatusOr<CountingBloomFilter> CountingBloomFilter::Create(const FilterOptions& options) {
  absl::StatusOr<FilterShape> shape = ClassicShape(options.expected_count, options.fp_rate);
  if (!shape.ok()) return shape.status();
  // 4x the bits of the plain filter: keep the same byte limit as kMaxBits.
  if (shape->bits > kMaxBits / 4) {
    return absl::OutOfRangeError("bloom: counting filter would exceed the size limit");
  }
  return CountingBloomFilter(*shape, options.expected_count);
}

CountingBloomFilter::CountingBloomFilter(const FilterShape& shape, uint64_t expected_count)
    : counters_(shape.bits),
      hash_count_(shape.hash_count),
      expected_count_(expected_count),
      words_(new uint64_t[(shape.bits + kCountersPerWord - 1) / kCountersPerWord]()) {}

CountingBloomFilter::CountingBloomFilter(CountingBloomFilter&&) noexcept = default;
CountingBloomFilter& CountingBloomFilter::operator=(CountingBloomFilter&&) noexcept = default;
CountingBloomFilter::~CountingBloomFilter() = default;

std::vector<uint64_t> CountingBloomFilter::CounterIndexes(const Hash128& h) const {
  std::vector<uint64_t> indexes(hash_count_);
  for (uint32_t i = 0; i < hash_count_; ++i) {
    indexes[i] = probes::ClassicPosition(h, i, counters_);
  }
  return indexes;
}

uint32_t CountingBloomFilter::CounterValue(uint64_t index) const {
  if (index >= counters_) return 0;
  return CounterIn(probes::LoadWord(&words_[index / kCountersPerWord]), index);
}

void CountingBloomFilter::Add(const Hash128& h) {
  for (uint32_t i = 0; i < hash_count_; ++i) {
    Step(words_.get(), probes::ClassicPosition(h, i, counters_), +1);
  }
}

bool CountingBloomFilter::MayContain(const Hash128& h) const {
  for (uint32_t i = 0; i < hash_count_; ++i) {
    if (CounterValue(probes::ClassicPosition(h, i, counters_)) == 0) return false;
  }
  return true;
}

bool CountingBloomFilter::Remove(const Hash128& h) {
  if (!MayContain(h)) return false;
  for (uint32_t i = 0; i < hash_count_; ++i) {
    Step(words_.get(), probes::ClassicPosition(h, i, counters_), -1);
  }
  return true;
}

uint64_t CountingBloomFilter::NonZeroCounters() const {
  uint64_t total = 0;
  for (uint64_t i = 0; i < counters_; ++i) total += CounterValue(i) != 0;
  return total;
}

uint64_t CountingBloomFilter::SaturatedCounters() const {
  uint64_t total = 0;
  for (uint64_t i = 0; i < counters_; ++i) total += CounterValue(i) == kCounterMax;
  return total;
}

}  // namespace bloom
