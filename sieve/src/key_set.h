// KeySet: an exact set of 64-bit keys for the false-positive sample
// (fp_sample.h), open addressing with linear probing, one array of keys.
//
// Why not absl::flat_hash_set: the sample is applied in groups with the next
// keys' cache lines fetched ahead (FpSample::ApplyPendingLocked). Abseil's
// prefetch() compiles to nothing under -DNDEBUG in the Debian build we link
// (20220623), and its insert touches two lines (control bytes, then the slot);
// here a key is one slot in one line whose address we can prefetch. Measured:
// bench/results/sieve.md.
//
// Layout: capacity a power of two, the home slot of a key is its Fibonacci
// hash's top bits; 0 marks an empty slot, so the key 0 is kept in a flag. The
// table grows at 3/4 load. Erasing rebuilds the table (EraseAbove is called a
// few times per doubling of the sample's share, never per key).
//
// Not thread-safe: FpSample holds its mutex around every call.
#ifndef SIEVE_SRC_KEY_SET_H_
#define SIEVE_SRC_KEY_SET_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sieve::internal {

class KeySet {
 public:
  KeySet() = default;

  // Adds `key`; true when it was not in the set.
  bool Insert(uint64_t key);
  bool Contains(uint64_t key) const;
  // Fetches the cache line an Insert or Contains of `key` starts at.
  void Prefetch(uint64_t key) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[HomeOf(key)], 1, 3);
  }
  // Drops every key above `max_key`.
  void EraseAbove(uint64_t max_key);
  void Clear();
  void Reserve(size_t count);

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The bytes the table holds (its slots).
  uint64_t MemoryBytes() const { return slots_.capacity() * sizeof(uint64_t); }
  // Every key, in no particular order.
  std::vector<uint64_t> Keys() const;

 private:
  size_t HomeOf(uint64_t key) const {
    return static_cast<size_t>((key * 0x9e3779b97f4a7c15ULL) >> shift_);
  }
  void Rebuild(size_t capacity, const std::vector<uint64_t>& keys);

  std::vector<uint64_t> slots_;  // 0 = empty
  int shift_ = 64;               // 64 - log2(capacity)
  size_t size_ = 0;              // keys, the 0 key included
  bool has_zero_ = false;
};

}  // namespace sieve::internal

#endif  // SIEVE_SRC_KEY_SET_H_
