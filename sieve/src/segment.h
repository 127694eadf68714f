// A run of queued URLs packed back to back, each record
// <LEB128 URL length><URL><LEB128 payload length><payload>: the unit the
// spilling queue keeps in memory and writes as one spill file.
//
// Packing matters for memory: a 75-byte URL without payload costs 77 bytes
// here against ~112 as a std::string in a deque (32-byte object + heap block
// rounded up).
//
//   Segment s;
//   s.Append("https://a.example/", "meta");
//   SieveEntry entry = s.PopFront();  // {"https://a.example/", "meta"}
//
// Threading: not thread-safe; the owner synchronizes.
#ifndef SIEVE_SRC_SEGMENT_H_
#define SIEVE_SRC_SEGMENT_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sieve/sieve.h"

namespace sieve::internal {

class Segment {
 public:
  Segment() = default;

  // Adopts `bytes` (a previously written segment) after checking that it holds
  // exactly `count` well-formed records.
  static absl::StatusOr<Segment> FromBytes(std::string bytes, size_t count);

  void Append(std::string_view url, std::string_view payload);
  void Reserve(size_t bytes) { bytes_.reserve(bytes); }
  // Empties the segment and frees its memory (assigning Segment() does not:
  // libstdc++'s string keeps its buffer when the string moved in is short).
  // Back pops stay enabled if they were.
  void Release();
  // Precondition: !Empty().
  SieveEntry PopFront();

  // Pops from the back too (a LIFO lane's stack): keeps the start offset of
  // each record from now on (4 bytes a record, in MemoryBytes). Call on a
  // segment whose records were never popped from the front.
  void EnableBackPops();
  bool BackPopsEnabled() const { return back_pops_; }
  // The newest record. Preconditions: !Empty(), EnableBackPops() was called.
  SieveEntry PopBack();
  // Moves out the oldest `count` records (a LIFO lane spills the bottom of
  // its stack and keeps the top); this segment keeps the rest. Precondition:
  // BackPopsEnabled(), count <= Remaining().
  Segment SplitFront(size_t count);
  // The record index whose start is the first at or past `bytes` (for
  // SplitFront by size). Precondition: BackPopsEnabled().
  size_t RecordsBefore(size_t bytes) const;

  bool Empty() const { return remaining_ == 0; }
  size_t Remaining() const { return remaining_; }
  // Bytes held in memory (capacity, not size: that is what malloc gave us).
  size_t MemoryBytes() const { return bytes_.capacity() + starts_.capacity() * sizeof(uint32_t); }
  // All bytes ever appended, including records already popped.
  const std::string& Bytes() const { return bytes_; }
  // The bytes of the records not yet popped: a Segment's bytes of its own.
  std::string_view RemainingBytes() const { return std::string_view(bytes_).substr(read_pos_); }
  size_t TotalRecords() const { return total_; }

  // Calls fn(url, payload) for each record not yet popped, in order; stops
  // at the first error and returns it.
  template <typename Fn>
  absl::Status ForEachRemaining(Fn&& fn) const {
    size_t pos = read_pos_;
    for (size_t i = 0; i < remaining_; ++i) {
      const std::string_view url = ReadAt(pos);
      const std::string_view payload = ReadAt(pos);
      absl::Status status = fn(url, payload);
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }

 private:
  // Reads the length-prefixed field at `pos` and advances `pos` past it.
  // Records in bytes_ are valid by construction (Append or FromBytes checked
  // them).
  std::string_view ReadAt(size_t& pos) const;

  std::string bytes_;
  // With back pops: where each remaining record starts (segments are at most
  // 16 MiB raw, far under 4 GiB; a checkpoint's larger in-memory parts are
  // never popped from the back).
  std::vector<uint32_t> starts_;
  bool back_pops_ = false;
  size_t read_pos_ = 0;
  size_t remaining_ = 0;
  size_t total_ = 0;
};

// LEB128 varint helpers, shared with the checkpoint format.
void AppendVarint(std::string& out, uint64_t value);
// Decodes a varint at data[pos...]; false if truncated or longer than 10 bytes.
bool ParseVarint(std::string_view data, size_t& pos, uint64_t& value);

}  // namespace sieve::internal

#endif  // SIEVE_SRC_SEGMENT_H_
