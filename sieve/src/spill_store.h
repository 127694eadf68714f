// Where a Sieve's queue lanes spill: one private directory (created on the
// first spill, removed with the store), unique file names, the spills' health
// and totals, and one background writer thread that seals, compresses and
// writes the segments every lane hands it.
//
// The writer: a queue hands a sealed segment over as a SpillJob (Submit) and
// goes on; the thread compresses it with its own zstd context (the cost that
// used to fall on the pushing thread, under the Sieve's queue mutex) and
// writes the file. It compresses at level 3 (kSegmentZstdLevel, ~0.5 us per
// URL here) when it keeps up, and at level 1 (kSegmentBurstZstdLevel, about
// twice as fast, ~2.5 B/URL more on disk) when other segments wait behind
// the one it takes: a burst of pushes then waits half as long. Jobs queued or
// being written are bounded (kMaxUnwrittenSegments, or more if they are
// small: see the constructor): Submit waits while the bound is reached (the
// only time a push waits for the disk). A
// job's segment stays in memory, counted in HeldBytes(), until its file is
// written; a failed write keeps it there (the queue then pops it from
// memory, in order, as before the writer existed). The store has two zstd
// contexts (~1 MB each once used): the writer's, and compressor() for
// checkpoints, used under the queue mutex; per lane they would multiply.
//
// Packs: a job may hold several lanes' parts (LaneSet forces many small
// parts out at once); the writer writes them back to back into one file,
// each part's record unchanged (segment_file.h), and every part learns its
// offset. A part may be taken back alone before the writer starts the job.
//
//   SpillStore store("/var/tmp", log);
//   SpillTarget target = *store.NewTarget();
//   const size_t part = target.job->AddPart(std::move(sealed));
//   store.Submit(target.job);                            // returns at once
//   if (store.Settle(*target.job, part, /*cancel=*/false) == SpillJob::State::kWritten) ...
//
// Threading: the queue side (every method) is called by one thread at a time,
// the Sieve's, under its queue mutex; the writer thread shares only the jobs,
// the totals and the health with it, under `mutex_`, which is taken after the
// queue mutex and never held while calling out (sieve_state.h, lock order).
#ifndef SIEVE_SRC_SPILL_STORE_H_
#define SIEVE_SRC_SPILL_STORE_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "segment.h"
#include "segment_file.h"
#include "sieve/log.h"

namespace sieve::internal {

// Sealed segments handed to the writer and not yet written (queued or being
// written), at most: four segments of budget / 8, half the budget. Enough to
// ride out a slow write; the writer's steady rate, not this bound, sets the
// push rate once pushes outrun it.
inline constexpr size_t kMaxUnwrittenSegments = 4;

class SpillStore;

// One spill file: one segment, or a pack of several lanes' segments back to
// back (each found by its byte offset). The queue entries of its segments
// share it (std::shared_ptr: the use count is the file's reference count);
// when the last one lets go, the file is removed. A pack therefore stays on
// disk, dead bytes and all, until every segment in it is popped.
// Queue side only (under the queue mutex); the writer never holds one.
class SpillFile {
 public:
  SpillFile(SpillStore& store, std::filesystem::path path)
      : store_(store), path_(std::move(path)) {}
  // Removes the file if it was written (or adopted) and tells the store.
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // The file exists, of `bytes`, and a checkpoint names it `name`
  // (SegmentFileName or PackFileName). Idempotent.
  void SetWritten(uint64_t bytes, std::string name);
  bool written() const { return written_; }
  uint64_t bytes() const { return bytes_; }
  const std::string& name() const { return name_; }

  bool synced = false;  // fsynced (by a Save, or adopted from a checkpoint)
  std::string origin;   // the checkpoint file it was adopted from, for errors

 private:
  SpillStore& store_;
  const std::filesystem::path path_;
  bool written_ = false;
  uint64_t bytes_ = 0;
  std::string name_;
};

// Sealed segments on their way to one spill file: one part (a lane's normal
// spill) or several (a pack: parts forced out of many lanes at once).
struct SpillJob {
  enum class State {
    kQueued,     // waiting for the writer
    kWriting,    // the writer has it
    kWritten,    // `file` holds it, each part's `info` and `offset` say where
    kFailed,     // the write failed; each part still holds its segment
    kCancelled,  // every part taken back before the writer started
  };
  struct Part {
    Segment segment;         // freed by the writer once written
    size_t bytes = 0;        // segment.MemoryBytes(): in HeldBytes() until written or released
    bool cancelled = false;  // taken back (Settle with cancel): not written
    // Set by the writer.
    uint64_t offset = 0;
    SegmentFileInfo info;
  };
  // Adds a part before Submit; returns its index.
  size_t AddPart(Segment segment);
  size_t Bytes() const;

  // Set by the queue side before Submit; then read-only until settled.
  std::filesystem::path file;
  std::vector<Part> parts;
  // Written by the writer under the store's mutex; read by the queue after
  // Settle has returned (the mutex orders the two).
  State state = State::kQueued;
  uint64_t file_bytes = 0;
  std::string name;            // the checkpoint name of the file
  size_t unwritten_bytes = 0;  // the store's: the parts' bytes at Submit, less cancelled ones
};

// A new job and its file, shared by the queue entries of its parts.
struct SpillTarget {
  std::shared_ptr<SpillJob> job;
  std::shared_ptr<SpillFile> file;
};

class SpillStore {
 public:
  // `spill_dir` must exist; `log` (empty: StderrLogSink) hears about failed
  // spills and their recovery (from the writer thread). Submit takes a job
  // while fewer than kMaxUnwrittenSegments are unwritten, or while the
  // unwritten jobs' bytes with it stay within `max_unwritten_bytes` (0: the
  // count alone). The byte bound is for many lanes: their forced-out parts
  // are small (~64 KiB each at 1,024 lanes of a 64 MiB budget), and four of
  // them were too short a buffer to ride out the writer's file work: pushes
  // waited on it every few parts (2.4x the push cost of no priorities).
  SpillStore(std::filesystem::path spill_dir, LogSink log, size_t max_unwritten_bytes = 0);
  // Stops the writer (jobs still queued are dropped: their queues are gone),
  // joins it, and removes the private directory and what is left in it.
  ~SpillStore();
  SpillStore(const SpillStore&) = delete;
  SpillStore& operator=(const SpillStore&) = delete;

  // A new file name in the private directory (created on first use).
  absl::StatusOr<std::filesystem::path> NewFilePath();
  // A job with no parts yet and its file (named by NewFilePath).
  absl::StatusOr<SpillTarget> NewTarget();
  const std::filesystem::path& private_dir() const { return private_dir_; }
  const std::filesystem::path& spill_dir() const { return spill_dir_; }
  // For checkpoints' in-memory parts, under the queue mutex (the writer has
  // its own).
  SegmentCompressor& compressor() { return compressor_; }
  const LogSink& log() const { return log_; }

  // Hands `job` (kQueued, file and parts set) to the writer; waits first
  // while the unwritten jobs are at their bound (the constructor). Starts
  // the writer on first use.
  void Submit(std::shared_ptr<SpillJob> job);
  // True if Submit would take a job of `job_bytes` now without waiting.
  bool HasRoomFor(size_t job_bytes) const;
  // Waits until `job` is written or failed, and returns its state; with
  // `cancel`, part `part` of a job the writer has not started is taken back
  // instead (kCancelled: it is not written; the job goes away once all its
  // parts are). The part's fields are then the queue's again.
  SpillJob::State Settle(SpillJob& job, size_t part, bool cancel);
  // The queue took the segment of a failed or cancelled part back.
  void Release(SpillJob::Part& part);
  // Waits until every submitted job is written or failed (tests, benchmarks).
  void WaitForWrites() const;
  // Jobs queued or being written now.
  size_t Unwritten() const;
  // Tests: while paused, the writer starts no job (Submit still queues up to
  // the bound; a Settle without cancel of a queued job would wait forever).
  void PauseWriterForTesting(bool paused);

  // The outcome of a spill done on the queue's thread (a file name that
  // could not be made): the segment stays in memory (logged once per run of
  // failures).
  void SpillFailed(const absl::Status& status);
  // A spill file was removed (its last segment popped, lost or dropped).
  void SpillRemoved(uint64_t file_bytes);
  // A file adopted from a checkpoint joined the queue.
  void FileAdopted(uint64_t file_bytes);
  // A spill file could not be read back: sticky (URLs were lost).
  void LoadFailed(const absl::Status& status);

  // See SpillQueue::Health. The writer's outcomes show once it has them.
  absl::Status Health() const;
  uint64_t SpillFailures() const;
  uint64_t DiskBytes() const;
  size_t SpilledFiles() const;
  // Segments written at kSegmentBurstZstdLevel because others waited behind
  // them.
  uint64_t BurstWrites() const;
  // Memory of the segments in jobs: unwritten, or failed and not yet popped.
  size_t HeldBytes() const { return held_bytes_.load(std::memory_order_relaxed); }

  // Set by the owner of many queues sharing one budget: true while their
  // memory together is over it, so that each queue spills as if it alone
  // were (SpillQueue::ShouldSpillTail).
  void set_over_budget(bool over) { over_budget_ = over; }
  bool over_budget() const { return over_budget_; }

 private:
  void WriterLoop();
  bool HasRoomLocked(size_t job_bytes) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Compresses and writes one job's parts into its file (no lock held);
  // sets each part's offset and info, and the file's bytes and name.
  absl::Status WriteJob(SpillJob& job, int level, uint64_t& file_bytes, std::string& name);
  // The totals and health after a spill; returns what to log (empty: nothing).
  std::string RecordWritten(uint64_t file_bytes) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  std::string RecordFailed(const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const std::filesystem::path spill_dir_;
  const LogSink log_;
  SegmentCompressor compressor_;         // the queue side's (checkpoints)
  SegmentCompressor writer_compressor_;  // the writer thread's
  std::filesystem::path private_dir_;
  uint64_t next_file_number_ = 0;
  bool over_budget_ = false;
  std::atomic<size_t> held_bytes_{0};

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;  // a job queued, settled or cancelled; stop
  std::deque<std::shared_ptr<SpillJob>> jobs_ ABSL_GUARDED_BY(mutex_);
  size_t writing_ ABSL_GUARDED_BY(mutex_) = 0;  // 0 or 1
  const size_t max_unwritten_bytes_;
  // Bytes of the jobs queued or being written.
  size_t unwritten_bytes_ ABSL_GUARDED_BY(mutex_) = 0;
  bool stop_ ABSL_GUARDED_BY(mutex_) = false;
  bool paused_ ABSL_GUARDED_BY(mutex_) = false;
  uint64_t disk_bytes_ ABSL_GUARDED_BY(mutex_) = 0;
  size_t spilled_files_ ABSL_GUARDED_BY(mutex_) = 0;
  absl::Status spill_error_ ABSL_GUARDED_BY(mutex_);  // the last spill's error, if it failed
  absl::Status load_error_ ABSL_GUARDED_BY(mutex_);   // the first unreadable spill file
  uint64_t spill_failures_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t burst_writes_ ABSL_GUARDED_BY(mutex_) = 0;
  std::thread writer_;  // started by the first Submit
};

}  // namespace sieve::internal

#endif  // SIEVE_SRC_SPILL_STORE_H_
