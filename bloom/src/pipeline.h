// A software pipeline for batched filter operations. Private to the library.
//
// Why a ring and not groups: the old loop hashed and prefetched a group of 16
// keys, then probed the 16. Each group's probes then waited for lines
// prefetched only a few keys earlier (a miss costs ~190 ns on the README's
// VM), and nothing was in flight while the next group was hashed. The ring
// keeps a steady `Depth` keys between a key's prefetch and its probe.
// Measured at n = 1e8 (README): blocked negative lookups of pre-hashed keys
// ~15 ns per key, of string keys ~25 ns (hashed ahead in chunks,
// filter_batch.cc), from ~45-80 ns with the groups.
#ifndef BLOOM_SRC_PIPELINE_H_
#define BLOOM_SRC_PIPELINE_H_

#include <cstddef>

#include "bloom/hash.h"

namespace bloom::pipeline {

// For i in [0, count) in order: op(i, hash_at(i)), where hash_at(i) and
// prefetch(hash) ran `Depth` keys earlier. Depth must be a power of two (the
// ring index is then a mask, not a division). `prefetch` must be inlined here
// ([[gnu::always_inline]]): a prefetch call GCC does not inline is deleted as
// dead code (probes.h).
template <size_t Depth, typename HashAt, typename Prefetch, typename Op>
void Run(size_t count, HashAt&& hash_at, Prefetch&& prefetch, Op&& op) {
  static_assert(Depth > 0 && (Depth & (Depth - 1)) == 0, "Depth must be a power of two");
  Hash128 ring[Depth];
  const size_t lead = count < Depth ? count : Depth;
  for (size_t i = 0; i < lead; ++i) {
    ring[i] = hash_at(i);
    prefetch(ring[i]);
  }
  for (size_t i = 0; i < count; ++i) {
    Hash128& slot = ring[i & (Depth - 1)];
    const Hash128 current = slot;
    if (i + Depth < count) {
      slot = hash_at(i + Depth);
      prefetch(slot);
    }
    op(i, current);
  }
}

}  // namespace bloom::pipeline

#endif  // BLOOM_SRC_PIPELINE_H_
