#include "filter_header.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "bit_storage.h"
#include "byte_io.h"
#include "probes.h"

namespace bloom {

std::string EncodeFilterHeader(const FilterHeaderKind& kind, const FilterHeader& h) {
  std::string bytes(kind.magic, 8);
  byte_io::Put(bytes, h.version);
  byte_io::Put(bytes, h.layout);
  byte_io::Put(bytes, h.hash_id);
  byte_io::Put(bytes, h.hash_count);
  byte_io::Put(bytes, h.bits);
  byte_io::Put(bytes, h.expected_count);
  byte_io::Put(bytes, h.fp_rate);
  byte_io::Put(bytes, h.count);
  byte_io::Put(bytes, byte_io::Checksum(bytes.data(), bytes.size()));
  return bytes;
}

absl::Status FilterHeaderDataLoss(const FilterHeaderKind& kind, absl::string_view what) {
  return absl::DataLossError(absl::StrCat(kind.error_prefix, what));
}

absl::StatusOr<FilterHeader> ReadFilterHeader(const FilterHeaderKind& kind, std::istream& in) {
  char bytes[kFilterHeaderBytes];
  // Magic and version first: a foreign or newer file is named as such even
  // when it is shorter than our header.
  if (!byte_io::ReadExactly(in, bytes, 12)) return FilterHeaderDataLoss(kind, "truncated header");
  if (std::memcmp(bytes, kind.magic, 8) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(kind.error_prefix, kind.foreign));
  }
  size_t offset = 8;
  FilterHeader h;
  h.version = byte_io::Get<uint32_t>(bytes, &offset);
  if (h.version > kind.newest_version) {
    return absl::UnimplementedError(absl::StrCat(kind.error_prefix, "format version ", h.version,
                                                 " is newer than this library reads (",
                                                 kind.newest_version, ")"));
  }
  if (!byte_io::ReadExactly(in, bytes + 12, kFilterHeaderBytes - 12)) {
    return FilterHeaderDataLoss(kind, "truncated header");
  }
  h.layout = byte_io::Get<uint32_t>(bytes, &offset);
  h.hash_id = byte_io::Get<uint32_t>(bytes, &offset);
  h.hash_count = byte_io::Get<uint32_t>(bytes, &offset);
  h.bits = byte_io::Get<uint64_t>(bytes, &offset);
  h.expected_count = byte_io::Get<uint64_t>(bytes, &offset);
  h.fp_rate = byte_io::Get<double>(bytes, &offset);
  h.count = byte_io::Get<uint64_t>(bytes, &offset);
  const uint64_t stored_checksum = byte_io::Get<uint64_t>(bytes, &offset);
  if (h.version == 0) return FilterHeaderDataLoss(kind, "format version 0");
  if (stored_checksum != byte_io::Checksum(bytes, kFilterHeaderBytes - 8)) {
    return FilterHeaderDataLoss(kind, "header checksum mismatch (corrupted file)");
  }
  if (h.hash_id != kHashId) {
    return absl::InvalidArgumentError(absl::StrCat(kind.error_prefix, "hash id ", h.hash_id,
                                                   " is not this library's (", kHashId, ")"));
  }
  return h;
}

bool FilterHeaderShapeIsPlausible(const FilterHeader& h) {
  const bool layout_ok = h.layout == static_cast<uint32_t>(Layout::kBlocked) ||
                         h.layout == static_cast<uint32_t>(Layout::kClassic);
  const uint64_t unit = h.layout == static_cast<uint32_t>(Layout::kBlocked) ? kBlockBits : 64;
  return layout_ok && h.hash_count >= 1 && h.hash_count <= kMaxHashCount && h.bits != 0 &&
         h.bits <= kMaxBits && h.bits % unit == 0;
}

}  // namespace bloom
