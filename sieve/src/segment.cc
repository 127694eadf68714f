#include "segment.h"

#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"

namespace sieve::internal {

void AppendVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

bool ParseVarint(std::string_view data, size_t& pos, uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= data.size()) return false;
    const auto byte = static_cast<uint8_t>(data[pos++]);
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

absl::StatusOr<Segment> Segment::FromBytes(std::string bytes, size_t count) {
  size_t pos = 0;
  for (size_t i = 0; i < count; ++i) {
    for (int field = 0; field < 2; ++field) {  // URL, payload
      uint64_t length = 0;
      if (!ParseVarint(bytes, pos, length) || length > bytes.size() - pos) {
        return absl::DataLossError(
            absl::StrCat("segment record ", i, " of ", count, " is truncated"));
      }
      pos += length;
    }
  }
  if (pos != bytes.size()) {
    return absl::DataLossError(
        absl::StrCat("segment has ", bytes.size() - pos, " bytes after its ", count, " records"));
  }
  Segment segment;
  segment.bytes_ = std::move(bytes);
  segment.remaining_ = count;
  segment.total_ = count;
  return segment;
}

void Segment::Append(std::string_view url, std::string_view payload) {
  AppendVarint(bytes_, url.size());
  bytes_.append(url);
  AppendVarint(bytes_, payload.size());
  bytes_.append(payload);
  ++remaining_;
  ++total_;
}

SieveEntry Segment::PopFront() {
  SieveEntry entry;
  entry.url = std::string(ReadAt(read_pos_));
  entry.payload = std::string(ReadAt(read_pos_));
  --remaining_;
  return entry;
}

std::string_view Segment::ReadAt(size_t& pos) const {
  uint64_t length = 0;
  ParseVarint(bytes_, pos, length);
  std::string_view url(bytes_.data() + pos, length);
  pos += length;
  return url;
}

}  // namespace sieve::internal
