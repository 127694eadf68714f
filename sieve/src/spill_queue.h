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
// `segment_bytes` is sealed and handed to the store's writer thread
// (spill_store.h), which compresses and writes it as the next file while the
// push returns. A pop takes from the head; an empty head loads the oldest
// file (and deletes it: disk space is reclaimed segment by segment), or, when
// nothing is on disk, takes the tail. FIFO order is therefore exact.
//
// A segment still with the writer keeps its place in the order: a pop that
// reaches it takes it back from memory if the writer has not started it
// (no file is written), or waits for its write to end and then loads it
// (kept in memory if the write failed). SaveTo and ForEach wait for it.
//
// Memory stays within the budget plus about three segments (1.4x the
// budget): the tail being filled (its buffer may have doubled), the head
// being drained, and rounding of the reserved tail buffer. Segments with the
// writer (kMaxUnwrittenSegments of them, or their bytes in smaller parts:
// half the budget) count in
// MemoryBytes and so inside that budget.
//
// A LIFO queue (order kLifo: one lane of a Sieve in Scrapy's order) is a
// stack: spilled segments (bottom, oldest first) | tail (the top, in memory,
// pushed and popped at its end). Past the budget, a top of two segments
// writes its older half out and keeps the newer in memory (so a push and a
// pop at the boundary do not write and read a file each); an empty top loads
// the newest file back. Deferred URLs (PushUnder) wait in `under_`, below
// everything, popped first-deferred-first once the rest is gone.
//
// Many queues (a Sieve's lanes) may share one SpillStore (spill_store.h):
// one directory, one compressor, one health; its over_budget() flag tells
// each queue when the lanes together are over their one budget. Their
// forced-out parts may share one file (a pack, ForceSpill with a target): a
// spilled segment is then (file, byte offset), and the file goes when the
// last segment in it is popped.
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
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "segment.h"
#include "segment_file.h"
#include "sieve/log.h"
#include "sieve/options.h"
#include "spill_store.h"

namespace sieve::internal {

struct SpillQueueOptions {
  size_t memory_budget_bytes = size_t{64} << 20;
  // Parent of the queue's private directory (created on first spill, removed
  // with the queue). Must exist.
  std::filesystem::path spill_dir;
  // Where a failed spill is reported (empty: StderrLogSink).
  LogSink log = nullptr;
  // FIFO (oldest first) or LIFO (newest first).
  LaneOrder order = LaneOrder::kFifo;
};

// A queue keeps at least this much in memory when its lanes are forced to
// spill for the shared budget: a smaller part is not worth a file.
inline constexpr size_t kMinForcedSpillBytes = size_t{4} << 10;

// The bytes of a spill segment for a budget: budget / 8 within [4 KiB, 16 MiB].
size_t SegmentBytesFor(size_t budget);
// The bytes a store lets wait for its writer: kMaxUnwrittenSegments full
// segments, however many parts they come in (SpillStore's constructor).
size_t MaxUnwrittenBytesFor(size_t budget);

class SpillQueue {
 public:
  // With `store` (shared by lanes; must outlive the queue) or a store of its own.
  explicit SpillQueue(SpillQueueOptions options, SpillStore* store = nullptr);
  ~SpillQueue();
  SpillQueue(const SpillQueue&) = delete;
  SpillQueue& operator=(const SpillQueue&) = delete;

  // Never fails: if a spill file cannot be written, the segment stays in memory
  // (over budget) and the order is kept; Health() then reports the error.
  void Push(std::string_view url, std::string_view payload);
  // Queues the URL behind every URL queued now (Sieve::Defer): Push for FIFO;
  // under the stack for LIFO.
  void PushUnder(std::string_view url, std::string_view payload);
  // The oldest URL and its payload, nullopt if empty, or an error if a spill
  // file cannot be read back (that segment's URLs are then lost and no longer
  // counted; Health() keeps the error).
  absl::StatusOr<std::optional<SieveEntry>> Pop();

  // OK, or why the queue is not keeping its contract: DataLoss (naming the
  // file) once a spill file could not be read back (sticky: URLs were lost);
  // else the error of the last spill if it failed (ResourceExhausted for a
  // full disk, naming the directory and errno), cleared when a later spill
  // succeeds. While spills fail, segments stay in memory over the budget.
  absl::Status Health() const { return store_->Health(); }
  // Spills that failed (segments kept in memory instead), since creation.
  uint64_t SpillFailures() const { return store_->SpillFailures(); }

  // For a shared budget: the in-memory part a forced spill would write (the
  // larger of tail and head), 0 if under kMinForcedSpillBytes.
  size_t ForcedSpillBytes() const;
  // Writes that part out now, whatever its size (order kept): as a file of
  // its own, or, with `pack`, as a part of that job (not yet submitted; the
  // caller submits it once every lane's part is in).
  void ForceSpill(const SpillTarget* pack = nullptr);

  // One segment of a checkpoint's queue.
  struct FileRef {
    std::string name;     // the file in the checkpoint directory
    uint64_t offset = 0;  // of the segment's header in that file (a pack)
    SegmentFileInfo info;
  };
  // The spill files a Save has linked so far (a pack is linked once
  // however many lanes list segments of it).
  using LinkedFiles = absl::flat_hash_set<const SpillFile*>;
  // The files an Open has adopted so far, by checkpoint name (a pack is
  // adopted once however many lanes list segments of it).
  using AdoptedFiles = absl::flat_hash_map<std::string, std::shared_ptr<SpillFile>>;
  // Puts the queue into `dir` as segment files, in the order Adopt takes
  // them. FIFO, oldest first: `front` (the records to come before the queue:
  // the in-flight URLs, oldest pop first), the head's remaining records,
  // each spilled segment, the tail. LIFO, bottom of the stack first: the
  // deferred URLs, each spilled segment, the top, then `front` reversed (so
  // that the first popped of them comes out first again). Spill files are
  // fsynced (once in their life) and hard-linked into `dir`; only the
  // in-memory parts are written. Files are named by content
  // (segment_file.h: SegmentFileName, PackFileName), so a file already in
  // `dir` under that name (from an earlier Save) is reused as is. A pack is
  // linked once per Save (`linked`, shared by the lanes of one Save), whole,
  // with the bytes of segments already popped. Does not fsync `dir`.
  absl::StatusOr<std::vector<FileRef>> SaveTo(const std::filesystem::path& dir,
                                              const Segment& front, LinkedFiles* linked = nullptr);
  // Appends the checkpoint's segments in `dir` to the (empty) queue: checks
  // each header at its offset against `files` (DataLoss naming the file)
  // and links each file once (`adopted`, shared by the lanes of one Open)
  // into the private spill directory. Nothing is loaded into memory.
  absl::Status Adopt(const std::filesystem::path& dir, const std::vector<FileRef>& files,
                     AdoptedFiles* adopted = nullptr);

  // Waits until every segment handed to the writer is written or failed (for
  // tests and benchmarks: file counts and Health() are then current).
  void WaitForWrites() const { store_->WaitForWrites(); }

  size_t Size() const { return size_; }
  // The in-memory parts plus, with a store of its own, the segments with its
  // writer (a shared store's are the store's: LaneSet adds them once).
  size_t MemoryBytes() const;
  // The in-memory parts alone (head, tail, deferred URLs, segments whose
  // file could not even be named).
  size_t ResidentBytes() const;
  // Of the store: every queue sharing it.
  uint64_t DiskBytes() const { return store_->DiskBytes(); }
  size_t SpilledSegments() const { return store_->SpilledFiles(); }
  size_t SegmentBytes() const { return segment_bytes_; }
  LaneOrder order() const { return options_.order; }

  // Calls fn(url, payload) on every queued URL without consuming: FIFO in
  // pop order; LIFO bottom of the stack first (the order SaveTo writes).
  absl::Status ForEach(
      absl::FunctionRef<absl::Status(std::string_view, std::string_view)> fn) const;

 private:
  // A segment between head and tail: with the writer (`job`, part `part`),
  // on disk (`file` at `offset`), or kept in memory because the write
  // failed (in `job`, or in `in_memory` when no file name could be made).
  struct Spilled {
    std::shared_ptr<SpillJob> job;  // until settled written
    size_t part = 0;
    // The file the job writes or wrote; null when no file name could be made.
    std::shared_ptr<SpillFile> file;
    uint64_t offset = 0;
    size_t count = 0;
    SegmentFileInfo info;  // of the segment
    Segment in_memory;
    bool OnDisk() const { return job == nullptr && file != nullptr; }
  };

  bool OverBudget() const;
  bool ShouldSpillTail() const;
  void SpillTail();
  // LIFO: writes the older half of the top out, keeps the newer half.
  void SpillBottomOfTop();
  // Writes `segment` as the next spill file (or, `at_front`, the one popped
  // next), or keeps it in memory if that fails; with `pack`, adds it to that
  // job instead.
  void SpillSegment(Segment segment, bool at_front = false, const SpillTarget* pack = nullptr);
  // Waits for (or, `cancel`, takes back) the writer's job of `spilled`; a
  // written one is then on disk. Returns the segment in memory, if any.
  const Segment* Settle(Spilled& spilled, bool cancel);
  absl::Status RefillHead();
  // LIFO: an empty top takes the newest spilled segment, or the deferred URLs.
  absl::Status RefillTop();
  absl::StatusOr<Segment> LoadSpilled(Spilled spilled);
  // Makes every spill file durable (before a checkpoint links it).
  absl::Status SyncSpillFiles();
  absl::StatusOr<FileRef> LinkIntoCheckpoint(const std::filesystem::path& dir, Spilled& spilled,
                                             LinkedFiles& linked);
  absl::StatusOr<FileRef> WriteIntoCheckpoint(const std::filesystem::path& dir,
                                              std::string_view raw, uint64_t records);

  const SpillQueueOptions options_;
  const size_t segment_bytes_;
  std::unique_ptr<SpillStore> own_store_;  // when no store was given
  SpillStore* const store_;

  Segment head_;  // FIFO only
  std::deque<Spilled> spilled_;
  Segment tail_;   // LIFO: the top of the stack
  Segment under_;  // LIFO only: deferred URLs, first deferred first
  size_t size_ = 0;
  size_t spilled_memory_bytes_ = 0;
};

}  // namespace sieve::internal

#endif  // SIEVE_SRC_SPILL_QUEUE_H_
