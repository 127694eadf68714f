// Little-endian fixed-width fields over iostreams, and a streaming XXH3-64
// checksum. Private helpers of the two saved formats.
#ifndef BLOOM_SRC_BYTE_IO_H_
#define BLOOM_SRC_BYTE_IO_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <istream>
#include <memory>
#include <ostream>
#include <string>

namespace bloom::byte_io {

static_assert(std::endian::native == std::endian::little,
              "saved filters are little-endian; add byte swapping for this host");

// Appends `value`'s little-endian bytes to `buffer`.
template <typename T>
void Put(std::string& buffer, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  buffer.append(bytes, sizeof(T));
}

// Reads a T from `data` at `*offset` and advances it (caller checked the size).
template <typename T>
T Get(const char* data, size_t* offset) {
  T value;
  std::memcpy(&value, data + *offset, sizeof(T));
  *offset += sizeof(T);
  return value;
}

// Reads exactly `size` bytes; false on a short read.
inline bool ReadExactly(std::istream& in, char* data, size_t size) {
  in.read(data, static_cast<std::streamsize>(size));
  return static_cast<size_t>(in.gcount()) == size;
}

// Bytes left in a seekable stream, or -1 if the stream cannot tell.
int64_t RemainingBytes(std::istream& in);

// XXH3-64 over a stream of chunks.
class StreamChecksum {
 public:
  StreamChecksum();
  ~StreamChecksum();
  StreamChecksum(const StreamChecksum&) = delete;
  StreamChecksum& operator=(const StreamChecksum&) = delete;
  void Update(const void* data, size_t size);
  uint64_t Digest() const;

 private:
  void* state_;
};

uint64_t Checksum(const void* data, size_t size);  // XXH3-64, seed 0

}  // namespace bloom::byte_io

#endif  // BLOOM_SRC_BYTE_IO_H_
