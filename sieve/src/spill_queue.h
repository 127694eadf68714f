// The Sieve's FIFO of URL strings, bounded in memory: when the queued bytes pass
// the budget, whole segments of the queue move to append-only files in a private
// spill directory and are read back, in order, when the consumer reaches them.
//
// Spilled segments are zstd-compressed, immutable files (segment_file.h): a
// checkpoint hard-links them instead of copying them (SaveTo), and a queue
// restored from a checkpoint adopts them the same way (Adopt), so popping
// deletes only the queue's own link.
//
// Layout, oldest first:  head (in memory, being popped) | spilled segments (on
// disk, each one file) | tail (in memory, being appended). A push appends to the
// tail; once spilling has begun (or memory passes the budget) a tail that reaches
// `segment_bytes` is written out as the next file. A pop takes from the head;
// an empty head loads the oldest file (and deletes it: disk space is reclaimed
// segment by segment), or, when nothing is on disk, takes the tail. FIFO order is
// therefore exact. Memory stays within the budget plus about three segments
// (1.4x the budget): the tail being filled (its buffer may have doubled), the
// head being drained, and rounding of the reserved tail buffer.
//
//   SpillQueue queue({.memory_budget_bytes = 4 << 20, .spill_dir = "/var/tmp"});
//   queue.Push("https://a.example/", /*payload=*/"");
//   absl::StatusOr<std::optional<SieveEntry>> entry = queue.Pop();
//
// Threading: not thread-safe; the Sieve calls it under its own mutex.
#ifndef SIEVE_SRC_SPILL_QUEUE_H_
#define SIEVE_SRC_SPILL_QUEUE_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "segment.h"
#include "segment_file.h"
#include "sieve/log.h"

namespace sieve::internal {

struct SpillQueueOptions {
  size_t memory_budget_bytes = size_t{64} << 20;
  // Parent of the queue's private directory (created on first spill, removed
  // with the queue). Must exist.
  std::filesystem::path spill_dir;
  // Where a failed spill is reported (empty: StderrLogSink).
  LogSink log = nullptr;
};

class SpillQueue {
 public:
  explicit SpillQueue(SpillQueueOptions options);
  ~SpillQueue();
  SpillQueue(const SpillQueue&) = delete;
  SpillQueue& operator=(const SpillQueue&) = delete;

  // Never fails: if a spill file cannot be written, the segment stays in memory
  // (over budget) and the order is kept; Health() then reports the error.
  void Push(std::string_view url, std::string_view payload);
  // The oldest URL and its payload, nullopt if empty, or an error if a spill
  // file cannot be read back (that segment's URLs are then lost and no longer
  // counted; Health() keeps the error).
  absl::StatusOr<std::optional<SieveEntry>> Pop();

  // OK, or why the queue is not keeping its contract: DataLoss (naming the
  // file) once a spill file could not be read back (sticky: URLs were lost);
  // else the error of the last spill if it failed (ResourceExhausted for a
  // full disk, naming the directory and errno), cleared when a later spill
  // succeeds. While spills fail, segments stay in memory over the budget.
  absl::Status Health() const;
  // Spills that failed (segments kept in memory instead), since creation.
  uint64_t SpillFailures() const { return spill_failures_; }

  // One file of a checkpoint's queue.
  struct FileRef {
    std::string name;  // in the checkpoint directory
    SegmentFileInfo info;
  };
  // Puts the queue into `dir` as segment files, oldest first: `front` (the
  // records to come before the queue: the in-flight URLs), the head's
  // remaining records, each spilled segment, the tail. Spill files are
  // fsynced (once in their life) and hard-linked into `dir`; only the
  // in-memory parts are written. Files are named by content
  // ("sieve-seg-<XXH3 of the raw bytes>.zst"), so a file already in `dir` under
  // that name (from an earlier Save) is reused as is. Does not fsync `dir`.
  absl::StatusOr<std::vector<FileRef>> SaveTo(const std::filesystem::path& dir,
                                              const Segment& front);
  // Appends the checkpoint's segment files in `dir` to the (empty) queue:
  // checks each header against `files` (DataLoss naming the file) and links
  // it into the private spill directory. Nothing is loaded into memory.
  absl::Status Adopt(const std::filesystem::path& dir, const std::vector<FileRef>& files);

  size_t Size() const { return size_; }
  size_t MemoryBytes() const;
  uint64_t DiskBytes() const { return disk_bytes_; }
  size_t SpilledSegments() const { return spilled_files_; }
  size_t SegmentBytes() const { return segment_bytes_; }

  // Calls fn(url, payload) on every queued URL, oldest first, without
  // consuming (checkpoints).
  absl::Status ForEach(
      absl::FunctionRef<absl::Status(std::string_view, std::string_view)> fn) const;

 private:
  // A segment between head and tail: on disk, or kept in memory because the
  // write failed.
  struct Spilled {
    std::filesystem::path file;  // empty when in_memory holds the segment
    size_t count = 0;
    SegmentFileInfo info;  // of the file
    bool synced = false;   // fsynced (by a Save, or adopted from a checkpoint)
    std::string origin;    // the checkpoint file it was adopted from, for errors
    Segment in_memory;
  };

  bool ShouldSpillTail() const;
  void SpillTail();
  // Writes `segment` as the next spill file, or keeps it in memory if that fails.
  void SpillSegment(Segment segment);
  absl::Status WriteSpillFile(const Segment& segment, Spilled& spilled);
  absl::Status EnsureSpillDir();
  absl::Status RefillHead();
  // Makes every spill file durable (before a checkpoint links it).
  absl::Status SyncSpillFiles();
  absl::StatusOr<FileRef> LinkIntoCheckpoint(const std::filesystem::path& dir, Spilled& spilled);
  absl::StatusOr<FileRef> WriteIntoCheckpoint(const std::filesystem::path& dir,
                                              std::string_view raw, uint64_t records);

  const SpillQueueOptions options_;
  const size_t segment_bytes_;
  SegmentCompressor compressor_;
  std::filesystem::path private_dir_;
  uint64_t next_file_number_ = 0;

  Segment head_;
  std::deque<Spilled> spilled_;
  Segment tail_;
  size_t size_ = 0;
  size_t spilled_memory_bytes_ = 0;
  uint64_t disk_bytes_ = 0;
  size_t spilled_files_ = 0;
  absl::Status spill_error_;  // the last spill's error, if it failed
  absl::Status load_error_;   // the first spill file that could not be read back
  uint64_t spill_failures_ = 0;
};

}  // namespace sieve::internal

#endif  // SIEVE_SRC_SPILL_QUEUE_H_
