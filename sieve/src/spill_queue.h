// The Sieve's FIFO of URL strings, bounded in memory: when the queued bytes pass
// the budget, whole segments of the queue move to append-only files in a private
// spill directory and are read back, in order, when the consumer reaches them.
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

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "segment.h"
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
  // (over budget; logged when spilling starts failing) and the order is kept.
  void Push(std::string_view url, std::string_view payload);
  // The oldest URL and its payload, nullopt if empty, or an error if a spill
  // file cannot be read back (that segment's URLs are then lost and no longer
  // counted).
  absl::StatusOr<std::optional<SieveEntry>> Pop();

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
    uint64_t file_bytes = 0;
    Segment in_memory;
  };

  bool ShouldSpillTail() const;
  void SpillTail();
  absl::Status EnsureSpillDir();
  absl::StatusOr<Segment> LoadSegment(const Spilled& spilled) const;
  absl::Status RefillHead();

  const SpillQueueOptions options_;
  const size_t segment_bytes_;
  std::filesystem::path private_dir_;
  uint64_t next_file_number_ = 0;

  Segment head_;
  std::deque<Spilled> spilled_;
  Segment tail_;
  size_t size_ = 0;
  size_t spilled_memory_bytes_ = 0;
  uint64_t disk_bytes_ = 0;
  size_t spilled_files_ = 0;
  bool spill_failing_ = false;  // log a failure once, not once per segment
};

}  // namespace sieve::internal

#endif  // SIEVE_SRC_SPILL_QUEUE_H_
