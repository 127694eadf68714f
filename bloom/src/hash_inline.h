// The key hash of bloom/hash.h, inlined into the library's hot loops (the
// public HashKey is an out-of-line call). Private to the library.
//
// Why inline: a lookup's cache miss costs ~185 ns on the README's VM, and the
// core can overlap the next key's miss only if that key's instructions fit in
// its reorder window; a call boundary per key and per hash adds instructions
// and blocks no reordering but costs window space.
#ifndef BLOOM_SRC_HASH_INLINE_H_
#define BLOOM_SRC_HASH_INLINE_H_

#include <string_view>

#include "bloom/hash.h"

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace bloom {

inline Hash128 HashBytesInline(const void* data, size_t size) {
  const XXH128_hash_t h = XXH3_128bits_withSeed(data, size, kHashSeed);
  return Hash128{h.low64, h.high64};
}

inline Hash128 HashKeyInline(std::string_view key) {
  return HashBytesInline(key.data(), key.size());
}

}  // namespace bloom

#endif  // BLOOM_SRC_HASH_INLINE_H_
