// XXH3-128 with the library's fixed seed (see bloom/hash.h).
#include "bloom/hash.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bloom {

Hash128 HashBytes(const void* data, size_t size) {
  const XXH128_hash_t h = XXH3_128bits_withSeed(data, size, kHashSeed);
  return Hash128{h.low64, h.high64};
}

Hash128 HashKey(std::string_view key) { return HashBytes(key.data(), key.size()); }

}  // namespace bloom
