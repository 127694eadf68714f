// Checksum repair for the checkpoint fuzzers. Every persisted format here is
// checksummed (STYLE.md rule 7), so nearly every mutation of a seed is
// refused at the first checksum and the parsers behind it are never reached.
// RepairChecksums rewrites the XXH3-64 fields of the embedded Bloom formats
// (bloom/src/filter_format.h, bloom/src/scalable_format.cc) so that mutated
// headers, sizes and counts get past them. It knows only where the checksums
// sit, not what the fields mean: a fuzzer harness, not a second parser.
#ifndef TESTS_FUZZ_CHECKSUM_FIXUP_H_
#define TESTS_FUZZ_CHECKSUM_FIXUP_H_

#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace fuzz {

inline uint64_t LoadU64(const std::string& bytes, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

inline uint32_t LoadU32(const std::string& bytes, size_t at) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

// Writes the XXH3-64 of bytes[begin, begin + size) little-endian at `at`.
inline void StoreChecksum(std::string& bytes, size_t begin, size_t size, size_t at) {
  uint64_t sum = XXH3_64bits(bytes.data() + begin, size);
  for (int i = 0; i < 8; ++i) bytes[at + i] = static_cast<char>(sum >> (8 * i));
}

// "CRAWLSBF": 56 fixed bytes (stage count at 52), 16 per stage, then the
// checksum of all of it.
inline void RepairScalableHeaders(std::string& bytes) {
  for (size_t p = bytes.find("CRAWLSBF"); p != std::string::npos;
       p = bytes.find("CRAWLSBF", p + 1)) {
    if (p + 56 > bytes.size()) return;
    const uint64_t stages = LoadU32(bytes, p + 52);
    if (stages > 4096) continue;
    const size_t covered = 56 + stages * 16;
    if (p + covered + 8 <= bytes.size()) StoreChecksum(bytes, p, covered, p + covered);
  }
}

// "CRAWLBLM": a 64-byte header whose last 8 bytes check the first 56, then
// `payload` bytes (u64 at 48) and their checksum.
inline void RepairFilterChecksums(std::string& bytes) {
  for (size_t p = bytes.find("CRAWLBLM"); p != std::string::npos;
       p = bytes.find("CRAWLBLM", p + 1)) {
    if (p + 64 > bytes.size()) return;
    StoreChecksum(bytes, p, 56, p + 56);
    const uint64_t payload = LoadU64(bytes, p + 48);
    if (payload <= bytes.size() && p + 64 + payload + 8 <= bytes.size()) {
      StoreChecksum(bytes, p + 64, payload, p + 64 + payload);
    }
  }
}

inline void RepairChecksums(std::string& bytes) {
  RepairScalableHeaders(bytes);
  RepairFilterChecksums(bytes);
}

// A checksummed file (sieve/src/file_io.h): body, then the XXH3-64 of the body.
inline void RepairTrailer(std::string& bytes) {
  if (bytes.size() >= 8) StoreChecksum(bytes, 0, bytes.size() - 8, bytes.size() - 8);
}

}  // namespace fuzz

#endif  // TESTS_FUZZ_CHECKSUM_FIXUP_H_
