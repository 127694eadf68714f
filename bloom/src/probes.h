// Where a key's bits are, and the atomic bit operations on them, for both
// layouts. Private to the library; inline because every operation runs them.
//
// Probe derivation (frozen by kHashId = 1; changing it breaks saved filters):
//  - classic: position_i = FastRange(h.low + i * h.high, m), i = 0..k-1
//    (double hashing; FastRange maps a 64-bit value to [0, m) with one multiply).
//  - blocked: block = FastRange(h.high, m / 512); bit_i = top 9 bits of
//    h.low * C^i (C odd, so each step is a bijection that mixes all 64 bits
//    into the top ones).
#ifndef BLOOM_SRC_PROBES_H_
#define BLOOM_SRC_PROBES_H_

#include <atomic>
#include <bit>
#include <cstdint>

#include "bloom/hash.h"
#include "bloom/params.h"
#include "dirty_blocks.h"

namespace bloom::probes {

inline constexpr uint64_t kWordsPerBlock = kBlockBits / 64;
inline constexpr uint64_t kBlockMultiplier = 0x9E3779B97F4A7C15ULL;  // odd: 2^64 / golden ratio

// floor(x * range / 2^64): a uniform x maps uniformly to [0, range).
inline uint64_t FastRange(uint64_t x, uint64_t range) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(x) * range) >> 64);
}

inline uint64_t LoadWord(const uint64_t* word) {
  return std::atomic_ref<uint64_t>(*const_cast<uint64_t*>(word)).load(std::memory_order_relaxed);
}

// Sets bit `bit` (0..63) of *word; returns 1 if this call turned it on, else
// 0. The plain load first avoids a locked write when the bit is already set
// (the common case for duplicates). The test of the old bit compiles to one
// `lock bts` on x86-64, where a fetch_or whose whole old value is used is a
// load plus a `lock cmpxchg` retry loop.
inline uint64_t SetBit(uint64_t* word, uint64_t bit) {
  const uint64_t mask = uint64_t{1} << bit;
  if ((LoadWord(word) & mask) != 0) return 0;
  const uint64_t old = std::atomic_ref<uint64_t>(*word).fetch_or(mask, std::memory_order_relaxed);
  return (old & mask) == 0 ? 1 : 0;
}

// Sets `mask` in *word; returns how many of its bits this call turned on.
// For merges (many bits per word); single probes use SetBit.
inline uint64_t SetBits(uint64_t* word, uint64_t mask) {
  const uint64_t before = LoadWord(word);
  if ((before & mask) == mask) return 0;
  const uint64_t old = std::atomic_ref<uint64_t>(*word).fetch_or(mask, std::memory_order_relaxed);
  return static_cast<uint64_t>(std::popcount(mask & ~old));
}

// ---- Blocked layout ------------------------------------------------------

inline uint64_t BlockIndex(const Hash128& h, uint64_t block_count) {
  return FastRange(h.high, block_count);
}

inline const uint64_t* BlockWords(const uint64_t* words, const Hash128& h, uint64_t block_count) {
  return words + BlockIndex(h, block_count) * kWordsPerBlock;
}

// Branch-free: after the first load the line is in L1, so testing all k bits
// costs a few cycles, while an early exit on a random probe would mispredict
// on most negative lookups and flush the loads of the keys behind it.
inline bool BlockedMayContain(const uint64_t* words, uint64_t block_count, uint32_t k,
                              const Hash128& h) {
  const uint64_t* block = BlockWords(words, h, block_count);
  uint64_t x = h.low;
  uint64_t all = 1;
  for (uint32_t i = 0; i < k; ++i) {
    const uint64_t bit = x >> 55;
    all &= LoadWord(block + (bit >> 6)) >> (bit & 63);
    x *= kBlockMultiplier;
  }
  return (all & 1) != 0;
}

// Returns the number of bits this call turned on (0: the key was present).
// One atomic operation per probe that finds its bit clear; none for a key
// already present. If `dirty` (a DirtyBlocks bitmap) is given and a bit was
// turned on, the block is marked there: a key already present costs nothing.
inline uint64_t BlockedInsert(uint64_t* words, uint64_t block_count, uint32_t k, const Hash128& h,
                              uint64_t* dirty) {
  const uint64_t index = BlockIndex(h, block_count);
  uint64_t* block = words + index * kWordsPerBlock;
  uint64_t x = h.low;
  uint64_t turned_on = 0;
  for (uint32_t i = 0; i < k; ++i) {
    const uint64_t bit = x >> 55;
    turned_on += SetBit(block + (bit >> 6), bit & 63);
    x *= kBlockMultiplier;
  }
  if (dirty != nullptr && turned_on != 0) MarkDirtyBlock(dirty, index);
  return turned_on;
}

// ---- Classic layout ------------------------------------------------------

inline uint64_t ClassicPosition(const Hash128& h, uint32_t i, uint64_t bits) {
  return FastRange(h.low + uint64_t{i} * h.high, bits);
}

inline bool ClassicMayContain(const uint64_t* words, uint64_t bits, uint32_t k, const Hash128& h) {
  for (uint32_t i = 0; i < k; ++i) {
    const uint64_t pos = ClassicPosition(h, i, bits);
    if ((LoadWord(words + (pos >> 6)) & (uint64_t{1} << (pos & 63))) == 0) return false;
  }
  return true;
}

// As BlockedInsert; each bit turned on marks its own 64-byte block.
inline uint64_t ClassicInsert(uint64_t* words, uint64_t bits, uint32_t k, const Hash128& h,
                              uint64_t* dirty) {
  uint64_t turned_on = 0;
  for (uint32_t i = 0; i < k; ++i) {
    const uint64_t pos = ClassicPosition(h, i, bits);
    const uint64_t set = SetBit(words + (pos >> 6), pos & 63);
    if (dirty != nullptr && set != 0) MarkDirtyBlock(dirty, pos >> 9);
    turned_on += set;
  }
  return turned_on;
}

// ---- Either layout ----------------------------------------------------------

inline bool MayContain(const uint64_t* words, Layout layout, uint64_t bits, uint32_t k,
                       const Hash128& h) {
  return layout == Layout::kBlocked ? BlockedMayContain(words, bits / kBlockBits, k, h)
                                    : ClassicMayContain(words, bits, k, h);
}

// Sets the key's bits; returns how many this call turned on (0: present).
// `dirty`: the filter's DirtyBlocks bitmap, or nullptr when not tracking.
inline uint64_t Insert(uint64_t* words, Layout layout, uint64_t bits, uint32_t k, const Hash128& h,
                       uint64_t* dirty) {
  return layout == Layout::kBlocked ? BlockedInsert(words, bits / kBlockBits, k, h, dirty)
                                    : ClassicInsert(words, bits, k, h, dirty);
}

// ---- Prefetch --------------------------------------------------------------

// Always inlined, and to be called only from code that is itself always
// inlined into the loop that needs the line: GCC 12 counts a prefetch as no
// side effect, so a function that does nothing but prefetch is found "pure"
// (ipa-modref), and a call to it whose result is unused is deleted as dead
// code. That is what made the default -O2 build's batches ~3x slower than
// -O3's: its early inliner left the pipeline's prefetch step out of line, and
// every prefetch vanished (bench/results/bloom-o2-vs-o3.md).
[[gnu::always_inline]] inline void PrefetchRead(const void* address) {
  __builtin_prefetch(address, 0, 3);
}
[[gnu::always_inline]] inline void PrefetchWrite(const void* address) {
  __builtin_prefetch(address, 1, 3);
}

}  // namespace bloom::probes

#endif  // BLOOM_SRC_PROBES_H_
