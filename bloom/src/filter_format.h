// The saved form of a BloomFilter (version 1). All integers little-endian.
//
//   offset size field
//        0    8 magic "CRAWLBLM"
//        8    4 version (1)
//       12    4 layout (1 blocked, 2 classic)
//       16    4 hash id (bloom::kHashId)
//       20    4 k
//       24    8 m (bits)
//       32    8 expected count n
//       40    8 target rate p (IEEE-754 double)
//       48    8 payload bytes (= m / 8)
//       56    8 XXH3-64 of bytes 0..55
//       64    m/8 the bit array, 64-bit words in order
//   64 + m/8    8 XXH3-64 of the bit array
//
// Any change to this layout, the hash or the probe derivation is a new
// version (tests/bloom/persistence_test.cc freezes the bytes).
#ifndef BLOOM_SRC_FILTER_FORMAT_H_
#define BLOOM_SRC_FILTER_FORMAT_H_

#include <cstdint>
#include <istream>
#include <ostream>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bloom/filter.h"

namespace bloom {

class FilterFormat {
 public:
  static constexpr char kMagic[8] = {'C', 'R', 'A', 'W', 'L', 'B', 'L', 'M'};
  static constexpr uint32_t kVersion = 1;
  static constexpr size_t kHeaderBytes = 64;
  static constexpr size_t kChunkBytes = size_t{1} << 20;

  static absl::Status Save(const BloomFilter& filter, std::ostream& out);
  static absl::StatusOr<BloomFilter> Load(std::istream& in);
};

}  // namespace bloom

#endif  // BLOOM_SRC_FILTER_FORMAT_H_
