// Where a Sieve's queue lanes spill: one private directory (created on the
// first spill, removed with the store), one zstd context shared by every lane
// (a context costs ~1 MB once used: per lane it would multiply with the
// lanes), unique file names, and the spills' health and totals.
//
//   SpillStore store("/var/tmp", log);
//   absl::StatusOr<std::filesystem::path> path = store.NewFilePath();
//   ... compress with store.compressor(), write, then store.SpillWritten(bytes) ...
//
// Threading: not thread-safe; the Sieve uses it under its queue mutex.
#ifndef SIEVE_SRC_SPILL_STORE_H_
#define SIEVE_SRC_SPILL_STORE_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "segment_file.h"
#include "sieve/log.h"

namespace sieve::internal {

class SpillStore {
 public:
  // `spill_dir` must exist; `log` (empty: StderrLogSink) hears about failed
  // spills and their recovery.
  SpillStore(std::filesystem::path spill_dir, LogSink log);
  ~SpillStore();  // removes the private directory and what is left in it
  SpillStore(const SpillStore&) = delete;
  SpillStore& operator=(const SpillStore&) = delete;

  // A new file name in the private directory (created on first use).
  absl::StatusOr<std::filesystem::path> NewFilePath();
  const std::filesystem::path& private_dir() const { return private_dir_; }
  const std::filesystem::path& spill_dir() const { return spill_dir_; }
  SegmentCompressor& compressor() { return compressor_; }
  const LogSink& log() const { return log_; }

  // The outcome of one spill: a written file of `file_bytes`, or the error
  // that kept its segment in memory (logged once per run of failures).
  void SpillWritten(uint64_t file_bytes);
  void SpillFailed(const absl::Status& status);
  // A spill file left the queue: popped (loaded back) or lost.
  void SpillRemoved(uint64_t file_bytes);
  // A file adopted from a checkpoint joined the queue.
  void FileAdopted(uint64_t file_bytes);
  // A spill file could not be read back: sticky (URLs were lost).
  void LoadFailed(const absl::Status& status);

  // See SpillQueue::Health.
  absl::Status Health() const;
  uint64_t SpillFailures() const { return spill_failures_; }
  uint64_t DiskBytes() const { return disk_bytes_; }
  size_t SpilledFiles() const { return spilled_files_; }

  // Set by the owner of many queues sharing one budget: true while their
  // memory together is over it, so that each queue spills as if it alone
  // were (SpillQueue::ShouldSpillTail).
  void set_over_budget(bool over) { over_budget_ = over; }
  bool over_budget() const { return over_budget_; }

 private:
  const std::filesystem::path spill_dir_;
  const LogSink log_;
  SegmentCompressor compressor_;
  std::filesystem::path private_dir_;
  uint64_t next_file_number_ = 0;
  uint64_t disk_bytes_ = 0;
  size_t spilled_files_ = 0;
  absl::Status spill_error_;  // the last spill's error, if it failed
  absl::Status load_error_;   // the first spill file that could not be read back
  uint64_t spill_failures_ = 0;
  bool over_budget_ = false;
};

}  // namespace sieve::internal

#endif  // SIEVE_SRC_SPILL_STORE_H_
