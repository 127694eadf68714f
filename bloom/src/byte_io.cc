#include "byte_io.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bloom::byte_io {

int64_t RemainingBytes(std::istream& in) {
  const std::istream::pos_type here = in.tellg();
  if (here == std::istream::pos_type(-1)) return -1;
  in.seekg(0, std::ios::end);
  const std::istream::pos_type end = in.tellg();
  in.seekg(here);
  if (end == std::istream::pos_type(-1) || !in) {
    in.clear();
    in.seekg(here);
    return -1;
  }
  return static_cast<int64_t>(end - here);
}

StreamChecksum::StreamChecksum() : state_(XXH3_createState()) {
  XXH3_64bits_reset(static_cast<XXH3_state_t*>(state_));
}

StreamChecksum::~StreamChecksum() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }

void StreamChecksum::Update(const void* data, size_t size) {
  XXH3_64bits_update(static_cast<XXH3_state_t*>(state_), data, size);
}

uint64_t StreamChecksum::Digest() const {
  return XXH3_64bits_digest(static_cast<const XXH3_state_t*>(state_));
}

uint64_t Checksum(const void* data, size_t size) { return XXH3_64bits(data, size); }

}  // namespace bloom::byte_io
