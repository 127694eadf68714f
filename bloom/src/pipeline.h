// Software pipelines for batched filter operations. Private to the library.
//
// Why a ring and not groups, for keys already hashed: the old loop hashed and
// prefetched a group of 16 keys, then probed the same 16. Each group's probes
// then waited for lines prefetched only a few keys earlier (a miss costs
// ~190 ns on the README's VM), and nothing was in flight while the next group
// was hashed. The ring (Run) keeps a steady `Depth` keys between a key's
// prefetch and its probe. Measured at n = 1e8 (README): blocked negative
// lookups of pre-hashed keys ~15-20 ns per key, from ~45-80 ns with the groups.
//
// Why double-buffered groups for string keys (RunInGroups): there the hash
// (XXH3-128, ~6.5 ns for a 47-byte key) is most of the CPU work, and it must
// overlap the misses. The ring with the hash inside its step was measured at
// ~37 ns per negative lookup, and the ring fed by hashes computed 64 at a time
// at ~23 ns: during each burst of 64 hashes no prefetch was issued, so the
// memory system idled, then the probes waited for it. RunInGroups hashes group
// g + 1 and prefetches each of its lines as soon as its hash is known (one
// prefetch every ~6.5 ns, faster than the ~11 ns per independent miss the
// memory system sustains, so it never idles while the core hashes), then
// probes group g, whose lines were prefetched a whole group earlier. Measured
// at n = 1e8, one thread, both timed in one process in alternating chunks
// (bench/results/bloom-batched-negative.md): ~18 ns per negative lookup, from
// ~23 ns, against ~11-12 ns per independent random read; bloom-bench medians
// 24.4 -> 19.0 ns.
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

// For i in [0, count) in order: op(i, hash_at(i)), in groups of `Group` keys:
// group g + 1 is hashed, each hash's prefetch issued right after it, before
// group g is probed. A key's prefetch thus runs at least a whole group (hashing
// plus probing, ~400 ns for 32 keys) ahead of its probe. Flattened: hash_at,
// prefetch and op are inlined here at -O2 as at -O3 (a prefetch left out of
// line is deleted as dead code, probes.h; so would XXH3's short-key path be
// left as a call per key). Not inlined into its caller, so the caller's other
// paths (the classic layout's ring) compile as they did without it.
template <size_t Group, typename HashAt, typename Prefetch, typename Op>
[[gnu::flatten, gnu::noinline]] void RunInGroups(size_t count, HashAt&& hash_at,
                                                 Prefetch&& prefetch, Op&& op) {
  static_assert(Group > 0, "Group must be positive");
  Hash128 groups[2][Group];
  const auto hash_and_prefetch = [&](size_t begin, size_t end, Hash128* out) {
    for (size_t i = begin; i < end; ++i) {
      out[i - begin] = hash_at(i);
      prefetch(out[i - begin]);
    }
  };
  const auto group_end = [count](size_t begin) {
    return count - begin < Group ? count : begin + Group;
  };
  hash_and_prefetch(0, group_end(0), groups[0]);
  for (size_t begin = 0, g = 0; begin < count; ++g) {
    const size_t end = group_end(begin);
    hash_and_prefetch(end, group_end(end), groups[(g + 1) & 1]);
    const Hash128* current = groups[g & 1];
    for (size_t i = begin; i < end; ++i) op(i, current[i - begin]);
    begin = end;
  }
}

}  // namespace bloom::pipeline

#endif  // BLOOM_SRC_PIPELINE_H_
