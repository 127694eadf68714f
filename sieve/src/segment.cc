#include "segment.h"

#include <algorithm>
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
  if (back_pops_) starts_.push_back(static_cast<uint32_t>(bytes_.size()));
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

void Segment::Release() {
  std::string().swap(bytes_);
  std::vector<uint32_t>().swap(starts_);
  read_pos_ = 0;
  remaining_ = 0;
  total_ = 0;
}

void Segment::EnableBackPops() {
  if (back_pops_) return;
  back_pops_ = true;
  starts_.clear();
  starts_.reserve(remaining_);
  size_t pos = read_pos_;
  for (size_t i = 0; i < remaining_; ++i) {
    starts_.push_back(static_cast<uint32_t>(pos));
    ReadAt(pos);
    ReadAt(pos);
  }
}

SieveEntry Segment::PopBack() {
  const size_t start = starts_.back();
  starts_.pop_back();
  size_t pos = start;
  SieveEntry entry;
  entry.url = std::string(ReadAt(pos));
  entry.payload = std::string(ReadAt(pos));
  bytes_.resize(start);  // capacity stays: the next push reuses it
  --remaining_;
  --total_;
  return entry;
}

size_t Segment::RecordsBefore(size_t bytes) const {
  return static_cast<size_t>(std::lower_bound(starts_.begin(), starts_.end(), read_pos_ + bytes) -
                             starts_.begin());
}

Segment Segment::SplitFront(size_t count) {
  Segment front;
  Segment back;
  const size_t cut = count < starts_.size() ? starts_[count] : bytes_.size();
  front.bytes_.assign(bytes_, read_pos_, cut - read_pos_);
  front.remaining_ = front.total_ = count;
  back.back_pops_ = true;
  back.bytes_.assign(bytes_, cut, std::string::npos);
  back.starts_.reserve(starts_.size() - count);
  for (size_t i = count; i < starts_.size(); ++i) back.starts_.push_back(starts_[i] - cut);
  back.remaining_ = back.total_ = remaining_ - count;
  *this = std::move(back);
  return front;
}

std::string_view Segment::ReadAt(size_t& pos) const {
  uint64_t length = 0;
  ParseVarint(bytes_, pos, length);
  std::string_view url(bytes_.data() + pos, length);
  pos += length;
  return url;
}

}  // namespace sieve::internal
