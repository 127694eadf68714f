// bloom/counting_filter.h: a Bloom filter that supports removal, with 4-bit
// saturating counters in place of bits (Fan, Cao, Almeida, Broder 2000).
//
//   bloom::FilterOptions options;
//   options.expected_count = 10'000;
//   options.fp_rate = 0.01;
//   absl::StatusOr<bloom::CountingBloomFilter> inflight =
//       bloom::CountingBloomFilter::Create(options);
//   inflight->Add("a");
//   inflight->Add("b");        // may share counters with "a"
//   inflight->Remove("a");     // "b" still answers true: shared counters only drop by one
//
// The counters use the classic layout (k counters anywhere in m), whatever
// options.layout says; memory is 4 bits per counter, 4x the plain filter.
//
// Removal rule, and why: a counter that reached 15 (saturated) may stand for
// more than 15 adds, so it is never decremented again. Therefore Remove never
// makes a present key look absent, as long as only keys that were added are
// removed. Remove of a key whose MayContain is false changes nothing and
// returns false. Removing a false positive (a key never added that answers
// true) decrements other keys' counters and CAN cause false negatives: only
// remove keys you added.
//
// Threading: every method may be called concurrently; each counter word (16
// counters) is updated with a compare-and-swap loop. Add and Remove of the same
// key racing with MayContain of it may answer either way.
#ifndef BLOOM_COUNTING_FILTER_H_
#define BLOOM_COUNTING_FILTER_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "bloom/filter.h"
#include "bloom/hash.h"

namespace bloom {

class CountingBloomFilter {
 public:
  static inline constexpr uint32_t kCounterMax = 15;  // 4 bits, saturating

  // Sized like a classic BloomFilter (params.h), same errors.
  static absl::StatusOr<CountingBloomFilter> Create(const FilterOptions& options);

  CountingBloomFilter(CountingBloomFilter&&) noexcept;
  CountingBloomFilter& operator=(CountingBloomFilter&&) noexcept;
  CountingBloomFilter(const CountingBloomFilter&) = delete;
  CountingBloomFilter& operator=(const CountingBloomFilter&) = delete;
  ~CountingBloomFilter();

  void Add(std::string_view key) { Add(HashKey(key)); }
  void Add(const Hash128& h);
  bool MayContain(std::string_view key) const { return MayContain(HashKey(key)); }
  bool MayContain(const Hash128& h) const;
  // Decrements the key's non-saturated counters. False (and no change) if the
  // key certainly is not present.
  bool Remove(std::string_view key) { return Remove(HashKey(key)); }
  bool Remove(const Hash128& h);

  // The counter indexes the key maps to (k of them; may repeat). For tests
  // and for explaining shared counters.
  std::vector<uint64_t> CounterIndexes(const Hash128& h) const;
  uint32_t CounterValue(uint64_t index) const;

  uint64_t Capacity() const { return expected_count_; }
  uint64_t CounterCount() const { return counters_; }  // m
  uint32_t HashCount() const { return hash_count_; }   // k
  uint64_t MemoryBytes() const { return counters_ / 2; }
  uint64_t NonZeroCounters() const;    // scans: O(m)
  uint64_t SaturatedCounters() const;  // scans: O(m)

 private:
  CountingBloomFilter(const FilterShape& shape, uint64_t expected_count);

  uint64_t counters_;
  uint32_t hash_count_;
  uint64_t expected_count_;
  std::unique_ptr<uint64_t[]> words_;  // 16 counters per word, accessed atomically
};

}  // namespace bloom

#endif  // BLOOM_COUNTING_FILTER_H_
