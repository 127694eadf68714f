// XXH3-128 with the library's fixed seed (see bloom/hash.h).
#include "bloom/hash.h"

#include "hash_inline.h"

namespace bloom {

Hash128 HashBytes(const void* data, size_t size) { return HashBytesInline(data, size); }

Hash128 HashKey(std::string_view key) { return HashKeyInline(key); }

}  // namespace bloom
