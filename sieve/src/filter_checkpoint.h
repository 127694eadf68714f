// The Sieve's filter in a checkpoint: a chain of immutable files whose cost
// follows the change, not the filter's size.
//
// A filter checkpoint is an ordered list of files in the checkpoint
// directory: the first is a base image (bloom's Save format) or, for a filter
// tracked since it was empty, a delta from zero; each later one is a delta of
// the 64-byte blocks changed since the file before it (bloom/filter.h).
// Applied in order they rebuild the saved filter bit for bit. A delta is one
// zstd frame of its format (zstd_streambuf.h: mostly zero bits, ~4x
// smaller); a base is written as it is (too slow to compress under the
// checkpoint's locks). Files are read either way, so the uncompressed deltas
// of builds before zstd still resume (tests/sieve/filter_checkpoint_test.cc,
// "BeforeZstd"). The bounds below count the formats' bytes, before zstd.
// Each Save keeps
// the chain's earlier files (hard links when the directory changes, a copy
// across file systems) and writes one new file: a delta, or a new base once
// the chain's deltas would pass 1.25x the base's size (docs/bloom.md,
// "Checkpoints": <= 1.0625x the changed bytes per delta, <= 2x amortized).
//
//   FilterChain chain;                              // one per Sieve
//   // under every stripe lock (no insert until it returns):
//   absl::StatusOr<FilterFiles> files = SaveFilterCheckpoint(filter, dir, chain);
//   ... record *files in the manifest, commit it (rename + fsync) ...
//   RemoveUnreferencedFilterFiles(dir, *files);     // after the commit only
//   // resume:
//   absl::StatusOr<SeenFilter> seen = LoadFilterCheckpoint(policy, dir, *files, &chain);
//
// Crash safety: every file is written under a temporary name, fsynced and
// renamed, and its name is new (random), so no file a committed manifest
// names is ever changed or replaced; RemoveUnreferencedFilterFiles deletes
// only files the newest manifest does not name. A kill -9 at any moment
// leaves the last committed manifest and all its files whole.
//
// Policy kGrow (ScalableBloomFilter): the same chain, with per-stage deltas
// (bloom/scalable_filter.h, "Incremental persistence"): a stage opened since
// the last Save enters the next delta as a delta from zero.
//
// Threading: not thread-safe; SaveFilterCheckpoint needs that no thread
// inserts into the filter until it returns (the Sieve holds its stripe locks).
#ifndef SIEVE_SRC_FILTER_CHECKPOINT_H_
#define SIEVE_SRC_FILTER_CHECKPOINT_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "seen_filter.h"
#include "sieve/options.h"

namespace sieve::internal {

// One file of a filter checkpoint, as a manifest must record it.
struct FilterFile {
  std::string name;       // inside the checkpoint directory, "filter-<16 hex>.base|.delta"
  uint64_t bytes = 0;     // its size
  uint64_t checksum = 0;  // XXH3-64 of its whole content
  bool operator==(const FilterFile&) const = default;
};

// The files that rebuild the filter, in the order they are applied.
struct FilterFiles {
  std::vector<FilterFile> files;
  uint64_t written_bytes = 0;  // bytes this Save wrote (0 for a load)
  uint64_t raw_bytes = 0;      // the same before zstd: the format's bytes
};

// What the Sieve remembers between checkpoints: where its chain's files are
// and how big its deltas have grown. Bound: one entry per file of the chain;
// the chain restarts with a base once its deltas pass 1.25x the base, so with
// deltas of at least 1/k of the filter it holds at most ~1.25k + 1 files (in
// practice tens at one checkpoint a minute).
class FilterChain {
 public:
  bool empty() const { return files_.empty(); }
  const std::vector<FilterFile>& files() const { return files_; }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  friend absl::StatusOr<FilterFiles> SaveFilterCheckpoint(SeenFilter&, const std::filesystem::path&,
                                                          FilterChain&);
  friend absl::StatusOr<SeenFilter> LoadFilterCheckpoint(OverflowPolicy,
                                                         const std::filesystem::path&,
                                                         const FilterFiles&, FilterChain*);

  std::filesystem::path dir_;      // where files_ are
  std::vector<FilterFile> files_;  // base (or delta from zero), then deltas
  uint64_t base_bytes_ = 0;        // size of a full image of this filter
  uint64_t delta_bytes_ = 0;       // deltas' total since the base
};

// Writes the filter's checkpoint files into `dir` (created if missing) and
// returns the full list; `chain` is updated only on success. The filter's
// dirty blocks are cleared once its new delta is durable. Errors name the
// file; on error the chain and the dirty blocks are as before (nothing lost).
absl::StatusOr<FilterFiles> SaveFilterCheckpoint(SeenFilter& filter,
                                                 const std::filesystem::path& dir,
                                                 FilterChain& chain);

// Rebuilds the filter from `files` in `dir`, checking each file's size and
// checksum (DataLoss naming the file on a mismatch, NotFound if missing).
// If `chain` is given it is set so that the next Save appends to these files.
absl::StatusOr<SeenFilter> LoadFilterCheckpoint(OverflowPolicy policy,
                                                const std::filesystem::path& dir,
                                                const FilterFiles& files, FilterChain* chain);

// Deletes the files named "filter-*.base|.delta" in `dir` that `keep` does not
// list (chains of earlier checkpoints, temporaries of an interrupted Save).
// Call only after the manifest naming `keep` is committed.
absl::Status RemoveUnreferencedFilterFiles(const std::filesystem::path& dir,
                                           const FilterFiles& keep);

}  // namespace sieve::internal

#endif  // SIEVE_SRC_FILTER_CHECKPOINT_H_
