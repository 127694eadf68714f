// The 64-byte header shared by a filter image (FilterFormat, magic
// "CRAWLBLM") and a filter delta (DeltaFormat, "CRAWLBLD"): magic (8), version
// (u32), layout, hash id, k (u32 each), m in bits, expected count (u64 each),
// fp rate (f64), one count whose meaning is the format's (the image's payload
// bytes, the delta's block records), and the XXH3-64 of the 56 bytes before
// it. Little-endian. The formats' own files document the rest of each file.
#ifndef CRAWL_BLOOM_SRC_FILTER_HEADER_H_
#define CRAWL_BLOOM_SRC_FILTER_HEADER_H_

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bloom {

struct FilterHeader {
  uint32_t version = 0;
  uint32_t layout = 0;
  uint32_t hash_id = 0;
  uint32_t hash_count = 0;
  uint64_t bits = 0;
  uint64_t expected_count = 0;
  double fp_rate = 0;
  uint64_t count = 0;  // image: payload bytes; delta: block records
};

// Which of the two formats a header belongs to, for its magic and errors.
struct FilterHeaderKind {
  const char* magic;               // 8 bytes, not NUL-terminated
  uint32_t newest_version;         // newer versions are refused (Unimplemented)
  absl::string_view error_prefix;  // "bloom: cannot load filter: "
  absl::string_view foreign;       // "not a crawl Bloom filter (bad magic)"
};

inline constexpr size_t kFilterHeaderBytes = 64;

std::string EncodeFilterHeader(const FilterHeaderKind& kind, const FilterHeader& header);

// Reads and checks a header, in the order that gives the clearest error: a
// foreign file (InvalidArgument), a newer version (Unimplemented), damage
// (DataLoss: truncated, version 0, checksum), another hash (InvalidArgument).
// The shape is the caller's to check (FilterHeaderShapeIsPlausible).
absl::StatusOr<FilterHeader> ReadFilterHeader(const FilterHeaderKind& kind, std::istream& in);

// DataLoss with the kind's prefix: "bloom: cannot load filter: <what>".
absl::Status FilterHeaderDataLoss(const FilterHeaderKind& kind, absl::string_view what);

// A layout this library knows, 1 <= k <= kMaxHashCount, 0 < m <= kMaxBits
// and m a whole number of the layout's units (blocks or words).
bool FilterHeaderShapeIsPlausible(const FilterHeader& header);

}  // namespace bloom

#endif  // CRAWL_BLOOM_SRC_FILTER_HEADER_H_
