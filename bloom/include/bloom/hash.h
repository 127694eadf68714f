// bloom/hash.h: the one key hash every filter in this library uses.
//
// A filter is saved, loaded and shared between processes and machines, so the
// positions a key maps to must never change: the hash is XXH3-128 (libxxhash)
// with a fixed seed, and its identity (`kHashId`) is written into every saved
// filter. A filter needs only this one 128-bit value per key; its k probe
// positions are derived from it (double hashing, see filter.h).
//
//   bloom::Hash128 h = bloom::HashKey("https://example.com/");
//   filter.InsertIfNew(h);  // hash once, use it for several filters
//
// Threading: pure functions, safe from any thread.
#ifndef BLOOM_HASH_H_
#define BLOOM_HASH_H_

#include <cstdint>
#include <string_view>

namespace bloom {

// A 128-bit key hash. `low` and `high` are the two halves of XXH3-128.
struct Hash128 {
  uint64_t low = 0;
  uint64_t high = 0;

  friend bool operator==(const Hash128&, const Hash128&) = default;
};

// The fixed seed. Changing it changes every position: never do it without
// bumping kHashId.
inline constexpr uint64_t kHashSeed = 0x6372617766696c74ULL;  // "crawfilt"

// Identifies (hash function, seed, probe derivation) in saved files. A file
// written with another id is refused on load rather than silently misread.
inline constexpr uint32_t kHashId = 1;  // XXH3-128, kHashSeed, probes of filter.h v1

// XXH3-128 of `key` with kHashSeed. Stable across runs, processes and machines.
Hash128 HashKey(std::string_view key);

// Same hash over raw bytes.
Hash128 HashBytes(const void* data, size_t size);

}  // namespace bloom

#endif  // BLOOM_HASH_H_
