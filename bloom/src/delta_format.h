// The saved form of a filter delta (version 1): the 64-byte blocks that
// changed since the previous delta (or base image). All integers little-endian.
//
//   offset size field
//        0    8 magic "CRAWLBLD"
//        8    4 version (1)
//       12    4 layout (1 blocked, 2 classic)
//       16    4 hash id (bloom::kHashId)
//       20    4 k
//       24    8 m (bits)
//       32    8 expected count n
//       40    8 target rate p (IEEE-754 double)
//       48    8 block count B (records that follow)
//       56    8 XXH3-64 of bytes 0..55
//       64 68*B records: u32 block index (strictly increasing), the block's
//                64 bytes (8 words; words past the end of the array are 0)
//  64+68*B    8 XXH3-64 of the records
//
// A u32 index suffices: m <= kMaxBits = 2^40 bits is 2^31 blocks. A record
// costs 68 bytes for 64 bytes of filter (r = 1.0625, docs/bloom.md uses it).
// Any change to this layout is a new version (tests/bloom/delta_test.cc
// freezes the bytes).
#ifndef BLOOM_SRC_DELTA_FORMAT_H_
#define BLOOM_SRC_DELTA_FORMAT_H_

#include <cstdint>
#include <istream>
#include <ostream>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bloom/filter.h"

namespace bloom {

class DeltaFormat {
 public:
  static constexpr char kMagic[8] = {'C', 'R', 'A', 'W', 'L', 'B', 'L', 'D'};
  static constexpr uint32_t kVersion = 1;
  static constexpr size_t kHeaderBytes = 64;
  static constexpr size_t kRecordBytes = 4 + 64;

  static absl::StatusOr<uint64_t> Save(const BloomFilter& filter, std::ostream& out);
  static absl::Status Apply(BloomFilter& filter, std::istream& in);
  static absl::StatusOr<BloomFilter> LoadFresh(std::istream& in);
};

}  // namespace bloom

#endif  // BLOOM_SRC_DELTA_FORMAT_H_
