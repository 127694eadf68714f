// A queue segment as an immutable file: the unit the spilling queue writes
// past its memory budget and the unit a checkpoint refers to (by hard link,
// never by copying bytes). Written once, never modified, removed by whoever
// holds its last link.
//
// Format (version 3), integers little-endian, a 48-byte header then the body:
//   "SIEVESGZ"      magic
//   u32 version     kSegmentFileVersion (3: the Sieve's third queue format)
//   u32 codec       1 = zstd (one frame); the only codec so far
//   u64 records     records in the segment
//   u64 raw bytes   size of the Segment bytes (records <varint len><URL><varint len><payload>)
//   u64 stored      size of the body that follows (compressed bytes)
//   u64 checksum    XXH3-64 of the raw Segment bytes (checked after decompressing,
//                   so it covers the codec too and does not depend on zstd's version)
// A segment file is exactly 48 + stored bytes. A pack (spill_store.h) is
// several such records back to back in one file, each found by its byte
// offset. A golden test (tests/sieve/segment_file_test.cc) freezes the header.
//
//   SegmentCompressor compressor;
//   SegmentFileInfo info;
//   absl::StatusOr<std::string> file = compressor.Encode(segment.Bytes(), segment.Remaining(),
//   info);
//   ... write *file to `path` (file_io.h) ...
//   absl::StatusOr<Segment> back = LoadSegmentFile(path, info);
//
// Threading: free functions with no shared state; a SegmentCompressor is
// used by one thread at a time (its owner's lock).
#ifndef SIEVE_SRC_SEGMENT_FILE_H_
#define SIEVE_SRC_SEGMENT_FILE_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "segment.h"

namespace sieve::internal {

inline constexpr uint32_t kSegmentFileVersion = 3;
inline constexpr size_t kSegmentHeaderBytes = 48;
// zstd level of spill and checkpoint segments, chosen by measurement
// (bench/sieve-store, docs/sieve.md "Spill format"; 8 MiB segments, CPU time
// on the loaded 2-core box): bench URL mix (~75 B) level 1: 24.3 B/URL on
// disk, 445 ns/URL to compress; level 3: 21.8 B, 1009 ns; level 6: 20.8 B,
// 2240 ns. Crawler mix (payload = depth + parent URL): level 1 29.8 B (at the
// 30-byte target), level 3 27.7 B, level 6 26.0 B. Level 3 keeps the crawler
// mix under the target for about 1 us per URL; past it, each byte saved
// costs twice the CPU, paid under the queue lock.
inline constexpr int kSegmentZstdLevel = 3;
// zstd level of a spill written while more sealed segments wait behind it
// (SpillStore's writer under a push burst): level 1 compresses about twice as
// fast as level 3 for ~2.5 more bytes per URL on disk (docs/sieve.md "zstd
// level"), so that a burst of pushes waits less for the disk. The file format
// is the same at every level.
inline constexpr int kSegmentBurstZstdLevel = 1;
// A segment larger than this (raw) is corruption, not a segment: the queue
// writes at most 16 MiB per segment, and a checkpoint's in-memory parts at
// most the queue's budget (capped by validate_options.cc at 64 GiB).
inline constexpr uint64_t kMaxSegmentRawBytes = uint64_t{64} << 30;

// What a segment file's header says; a checkpoint manifest keeps the same.
struct SegmentFileInfo {
  uint64_t records = 0;
  uint64_t raw_bytes = 0;
  uint64_t stored_bytes = 0;
  uint64_t checksum = 0;  // XXH3-64 of the raw bytes
  uint64_t FileBytes() const { return kSegmentHeaderBytes + stored_bytes; }
  bool operator==(const SegmentFileInfo&) const = default;
};

// Compresses segments with one reused zstd context (allocating a context per
// segment costs ~1 MB of page faults at level 3).
class SegmentCompressor {
 public:
  explicit SegmentCompressor(int level = kSegmentZstdLevel);
  ~SegmentCompressor();
  SegmentCompressor(const SegmentCompressor&) = delete;
  SegmentCompressor& operator=(const SegmentCompressor&) = delete;

  // The whole file (header and body) for `raw`, the bytes of a Segment of
  // `records` records, compressed at the compressor's level, or at `level`
  // when given.
  absl::StatusOr<std::string> Encode(std::string_view raw, uint64_t records, SegmentFileInfo& info);
  absl::StatusOr<std::string> Encode(std::string_view raw, uint64_t records, SegmentFileInfo& info,
                                     int level);

 private:
  struct Context;
  int level_;
  std::unique_ptr<Context> context_;
};

// Reads and checks the header of the file at `path` against its size:
// DataLoss naming the file if the magic, version, codec or size is wrong.
absl::StatusOr<SegmentFileInfo> ReadSegmentFileHeader(const std::filesystem::path& path);
// The same for the segment at byte `offset` of a file that may hold more
// (a pack): the segment must end within the file. DataLoss names the file
// and the offset.
absl::StatusOr<SegmentFileInfo> ReadSegmentHeaderAt(const std::filesystem::path& path,
                                                    uint64_t offset);

// Loads the whole segment; DataLoss naming the file unless its header equals
// `expected` and the decompressed bytes match the checksum and hold exactly
// `expected.records` well-formed records.
absl::StatusOr<Segment> LoadSegmentFile(const std::filesystem::path& path,
                                        const SegmentFileInfo& expected);
// Loads the segment at byte `offset` of `path` with one pread of its header
// and body; the same checks, DataLoss naming the file and the offset.
absl::StatusOr<Segment> LoadSegmentAt(const std::filesystem::path& path, uint64_t offset,
                                      const SegmentFileInfo& expected);

// A checkpoint's name for a file of one segment: its raw bytes' checksum, so
// the same segment saved twice is one file and a name never changes its
// content. (Two segments with one XXH3-64: probability ~n^2 / 2^65.)
std::string SegmentFileName(uint64_t checksum);
// A checkpoint's name for a pack: the XXH3-64 of its segments' (records, raw
// bytes, checksum) in file order, so it does not depend on zstd's output.
std::string PackFileName(const std::vector<SegmentFileInfo>& segments);

}  // namespace sieve::internal

#endif  // SIEVE_SRC_SEGMENT_FILE_H_
