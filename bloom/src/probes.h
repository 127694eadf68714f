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

// Sets `mask` in *word; returns how many of its bits this call turned on. The
// plain load first avoids a locked write when the bits are already set (the
// common case for duplicates).
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

// The k bits of the key inside its block, as one mask per word of the block.
struct BlockMasks {
  uint64_t word[kWordsPerBlock] = {};
};

inline BlockMasks MakeBlockMasks(const Hash128& h, uint32_t k) {
  BlockMasks masks;
  uint64_t x = h.low;
  for (uint32_t i = 0; i < k; ++i) {
    const uint64_t bit = x >> 55;  // 9 bits: 0..511
    masks.word[bit >> 6] |= uint64_t{1} << (bit & 63);
    x *= kBlockMultiplier;
  }
  return masks;
}

inline const uint64_t* BlockWords(const uint64_t* words, const Hash128& h, uint64_t block_count) {
  return words + BlockIndex(h, block_count) * kWordsPerBlock;
}

inline bool BlockedMayContain(const uint64_t* words, uint64_t block_count, uint32_t k,
                              const Hash128& h) {
  const uint64_t* block = BlockWords(words, h, block_count);
  const BlockMasks masks = MakeBlockMasks(h, k);
  bool all = true;
  for (uint64_t w = 0; w < kWordsPerBlock; ++w) {
    all &= (LoadWord(block + w) & masks.word[w]) == masks.word[w];
  }
  return all;
}

// Returns the number of bits this call turned on (0: the key was present).
inline uint64_t BlockedInsert(uint64_t* words, uint64_t block_count, uint32_t k, const Hash128& h) {
  uint64_t* block = words + BlockIndex(h, block_count) * kWordsPerBlock;
  const BlockMasks masks = MakeBlockMasks(h, k);
  uint64_t turned_on = 0;
  for (uint64_t w = 0; w < kWordsPerBlock; ++w) {
    if (masks.word[w] != 0) turned_on += SetBits(block + w, masks.word[w]);
  }
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

inline uint64_t ClassicInsert(uint64_t* words, uint64_t bits, uint32_t k, const Hash128& h) {
  uint64_t turned_on = 0;
  for (uint32_t i = 0; i < k; ++i) {
    const uint64_t pos = ClassicPosition(h, i, bits);
    turned_on += SetBits(words + (pos >> 6), uint64_t{1} << (pos & 63));
  }
  return turned_on;
}

// ---- Prefetch --------------------------------------------------------------

inline void PrefetchRead(const void* address) { __builtin_prefetch(address, 0, 3); }
inline void PrefetchWrite(const void* address) { __builtin_prefetch(address, 1, 3); }

}  // namespace bloom::probes

#endif  // BLOOM_SRC_PROBES_H_
