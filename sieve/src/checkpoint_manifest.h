// The checkpoint's manifest, dir/sieve.checkpoint: the one file a Save
// replaces atomically, last, and the only one Open reads first. It holds the
// counters, the policy, the filter's part and the queue: its lanes (one per
// priority) each as a list of segment files (segment_file.h) in the order
// SpillQueue::SaveTo writes them; those files, in the same directory, are
// immutable and shared (hard links) with the queue's spill directory.
//
// Format (version 5), integers little-endian, then the 8-byte XXH3-64 of
// everything before it (file_io.h):
//   "SIEVECKP"                 magic
//   u32 version                5
//   u32 overflow policy        0 = warn, 1 = grow
//   u64 accepted, dropped, popped, done, lost, overflow_warnings
//   u32 length, bytes          the filter's part (opaque here: checkpoint.cc's
//                              SaveFilter writes it, LoadFilter reads it)
//   u32 lane order             0 = FIFO, 1 = LIFO
//   u64 queued URLs            the sum of every segment's records
//   u32 lane count
//   per lane, highest priority first (strictly descending):
//     i32 priority, u32 segment count,
//     per segment: u32 name length, name, u64 offset (of the segment's
//                  header in that file: a pack holds several), u64 records,
//                  u64 raw bytes, u64 stored bytes, u64 checksum
// A file named by several segments (a pack) is one file in the directory.
// Version 4 is the same without the offsets: every segment at offset 0.
// Version 3 (no lanes) is the same up to the filter's part, then u64 queued,
// u32 segment count and the segments in FIFO order: it reads as one FIFO lane
// at priority 0. Golden tests (tests/sieve/checkpoint_test.cc) freeze all
// three.
// Versions 1 and 2 (one file holding the filter and every URL) are read by
// checkpoint.cc's legacy path.
//
// Threading: plain data and free functions.
#ifndef SIEVE_SRC_CHECKPOINT_MANIFEST_H_
#define SIEVE_SRC_CHECKPOINT_MANIFEST_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "file_io.h"
#include "lanes.h"
#include "sieve/options.h"
#include "sieve_state.h"
#include "spill_queue.h"

namespace sieve::internal {

inline constexpr std::string_view kCheckpointMagic = "SIEVECKP";
inline constexpr uint32_t kManifestVersion = 5;
inline constexpr uint32_t kVersionWithoutOffsets = 4;   // lanes, a file per segment
inline constexpr uint32_t kVersionWithoutLanes = 3;     // manifest, one FIFO queue
inline constexpr uint32_t kVersionWithPayloads = 2;     // one file, payloads
inline constexpr uint32_t kVersionWithoutPayloads = 1;  // one file, URLs only

// The fields every version starts with.
struct CheckpointHeader {
  uint32_t version = kManifestVersion;
  OverflowPolicy policy = OverflowPolicy::kWarn;
  SieveCounters counters;
};

struct Manifest {
  CheckpointHeader header;
  std::string filter_part;
  LaneOrder order = LaneOrder::kFifo;
  uint64_t queued = 0;
  std::vector<LaneFiles> lanes;
};

void WriteManifest(const Manifest& manifest, std::ostream& out);

// Reads the magic, a supported version (1 to 5; Unimplemented naming the
// version otherwise), the policy and the counters.
absl::Status ReadCheckpointHeader(BodyReader& in, CheckpointHeader& header);
// Reads the rest of a version-3, -4 or -5 manifest after its header; DataLoss if
// the segments' records do not add up to the queued count, or the lanes'
// priorities are not strictly descending.
absl::Status ReadManifestBody(BodyReader& in, Manifest& manifest);

}  // namespace sieve::internal

#endif  // SIEVE_SRC_CHECKPOINT_MANIFEST_H_
