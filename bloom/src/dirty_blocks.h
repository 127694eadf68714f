// Which 64-byte blocks (cache lines) of a filter's bit array changed since the
// last delta was saved: one bit per block, in an array of atomic words. Private
// to the library.
//
// Bound: m / 512 bits, i.e. 1/512 of the filter (2.4 MB for the 1.25 GB filter
// of n = 1e9 at p = 1%). Block b is words [8b, 8b + 8) of the bit array for
// both layouts (the blocked layout's blocks are exactly these lines).
//
// Threading: Mark may run concurrently with Mark (an atomic fetch_or, tested
// first so a block already dirty costs one load). Count, ForEach and Clear see
// a consistent set only when no thread marks (the caller's rule).
#ifndef BLOOM_SRC_DIRTY_BLOCKS_H_
#define BLOOM_SRC_DIRTY_BLOCKS_H_

#include <atomic>
#include <bit>
#include <cstdint>
#include <vector>

namespace bloom {

inline constexpr uint64_t kWordsPerDirtyBlock = 8;  // 64 bytes

// Marks block `block` in the bitmap `dirty` (words of 64 block bits).
inline void MarkDirtyBlock(uint64_t* dirty, uint64_t block) {
  uint64_t* word = dirty + (block >> 6);
  const uint64_t mask = uint64_t{1} << (block & 63);
  std::atomic_ref<uint64_t> ref(*word);
  if ((ref.load(std::memory_order_relaxed) & mask) == 0) {
    ref.fetch_or(mask, std::memory_order_relaxed);
  }
}

class DirtyBlocks {
 public:
  // Blocks covering `word_count` words of the bit array (the last may be
  // partial for the classic layout).
  explicit DirtyBlocks(uint64_t word_count)
      : block_count_((word_count + kWordsPerDirtyBlock - 1) / kWordsPerDirtyBlock),
        bits_((block_count_ + 63) / 64, 0) {}

  uint64_t* words() { return bits_.data(); }
  uint64_t block_count() const { return block_count_; }

  uint64_t Count() const {
    uint64_t total = 0;
    for (const uint64_t& w : bits_) total += std::popcount(Load(w));
    return total;
  }

  // Calls f(block) for each dirty block in increasing order.
  template <typename F>
  void ForEach(F&& f) const {
    for (uint64_t i = 0; i < bits_.size(); ++i) {
      for (uint64_t w = Load(bits_[i]); w != 0; w &= w - 1) {
        f(i * 64 + static_cast<uint64_t>(std::countr_zero(w)));
      }
    }
  }

  void Clear() {
    for (uint64_t& w : bits_) std::atomic_ref<uint64_t>(w).store(0, std::memory_order_relaxed);
  }

 private:
  static uint64_t Load(const uint64_t& w) {
    return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(w)).load(std::memory_order_relaxed);
  }

  uint64_t block_count_;
  std::vector<uint64_t> bits_;
};

}  // namespace bloom

#endif  // BLOOM_SRC_DIRTY_BLOCKS_H_
