// The checkpoint's manifest, dir/sieve.checkpoint: the one file a Save
// replaces atomically, last, and the only one Open reads first. It holds the
// counters, the policy, the filter's part and the queue as a list of segment
// files (segment_file.h) in FIFO order; those files, in the same directory,
// are immutable and shared (hard links) with the queue's spill directory.
//
// Format (version 3), integers little-endian, then the 8-byte XXH3-64 of
// everything before it (file_io.h):
//   "SIEVECKP"                 magic
//   u32 version                3
//   u32 overflow policy        0 = warn, 1 = grow
//   u64 accepted, dropped, popped, done, lost, overflow_warnings
//   u32 length, bytes          the filter's part (opaque here: checkpoint.cc's
//                              SaveFilter writes it, LoadFilter reads it)
//   u64 queued URLs            the sum of the segments' records
//   u32 segment count
//   per segment, oldest first: u32 name length, name, u64 records,
//                              u64 raw bytes, u64 stored bytes, u64 checksum
// A golden test (tests/sieve/checkpoint_test.cc) freezes these bytes.
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
#include "sieve/options.h"
#include "sieve_state.h"
#include "spill_queue.h"

namespace sieve::internal {

inline constexpr std::string_view kCheckpointMagic = "SIEVECKP";
inline constexpr uint32_t kManifestVersion = 3;
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
  uint64_t queued = 0;
  std::vector<SpillQueue::FileRef> segments;
};

void WriteManifest(const Manifest& manifest, std::ostream& out);

// Reads the magic, a supported version (1, 2 or 3; Unimplemented naming the
// version otherwise), the policy and the counters.
absl::Status ReadCheckpointHeader(BodyReader& in, CheckpointHeader& header);
// Reads the rest of a version-3 manifest after its header; DataLoss if the
// segments' records do not add up to the queued count.
absl::Status ReadManifestBody(BodyReader& in, Manifest& manifest);

}  // namespace sieve::internal

#endif  // SIEVE_SRC_CHECKPOINT_MANIFEST_H_
