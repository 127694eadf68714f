// DiskWriter: the one thread that touches the disk. Callers queue byte strings
// for a file; the thread appends them in queue order, and on a change of file
// fsyncs and closes the previous one, so a rotated file is durable before the
// next one grows. The queue is bounded in bytes: Append blocks while it is
// over the limit, which is the only time a fetcher waits on the disk.
//
// The thread writes in batches: it wakes once `batch_bytes` are queued (256
// KiB, or half the queue limit if smaller) or `max_delay` after the first
// byte waits, and writes each run of chunks for one file with one writev.
// Waking per record cost a futex wake, a context switch and a write(2) per
// page, ~2000 a second on the testsite crawl; batches make it ~20.
//
// Append copies the bytes into the pending batch, one buffer reused from
// batch to batch (the thread swaps it with the one it just wrote), so a
// record costs no allocation here. A string per record, allocated by a
// fetcher thread and freed by this one, made every free a cross-arena one
// (glibc locks the fetcher's arena) and kept shrinking and regrowing the
// fetchers' heaps (mprotect, page faults): a few us of CPU per page.
//
// Threading: Append, QueuedBytes and Finish are safe from any thread; the order
// of bytes on disk is the order of Append calls.
#ifndef CRAWLER_SRC_WARC_DISK_WRITER_H_
#define CRAWLER_SRC_WARC_DISK_WRITER_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace crawler::warc_internal {

class DiskWriter {
 public:
  // max_delay: the longest a queued byte waits for the thread (default 50 ms).
  explicit DiskWriter(size_t queue_limit_bytes,
                      std::chrono::milliseconds max_delay = std::chrono::milliseconds(50));
  ~DiskWriter();  // Finish()
  DiskWriter(const DiskWriter&) = delete;
  DiskWriter& operator=(const DiskWriter&) = delete;

  // Queues `bytes` to append to `path` (created; it must not exist yet).
  // Returns the thread's first error, or FailedPrecondition after Finish.
  absl::Status Append(const std::string& path, absl::string_view bytes);

  uint64_t QueuedBytes() const;

  // Blocks until every byte queued before the call is written and the file
  // fsynced, without waiting for the batch delay. Returns the first error.
  absl::Status Sync();

  // Writes all queued bytes, fsyncs and closes the file, joins the thread.
  // Idempotent; returns the first error.
  absl::Status Finish();

 private:
  // Bytes for one or more files, in order: run i covers [runs[i-1].end,
  // runs[i].end) of `bytes` and goes to runs[i].path.
  struct Batch {
    struct Run {
      std::string path;
      size_t end = 0;
    };
    std::string bytes;
    std::vector<Run> runs;
    void Add(const std::string& path, absl::string_view data);
    void Clear(size_t keep_capacity);
  };

  void Run();
  bool BatchReady() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  bool SyncPending() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return sync_done_ < sync_requested_;
  }
  absl::Status SyncFile();  // writer thread
  absl::Status WriteBatch(const Batch& batch);
  absl::Status OpenFile(const std::string& path);
  absl::Status WriteRun(const std::string& path, absl::string_view bytes);
  absl::Status CloseFile();

  const size_t queue_limit_bytes_;
  const size_t batch_bytes_;
  const std::chrono::milliseconds max_delay_;
  mutable std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable space_ready_;
  Batch queue_ ABSL_GUARDED_BY(mutex_);
  Batch written_;  // writer thread: the last batch written, its buffer kept for reuse
  uint64_t queued_bytes_ ABSL_GUARDED_BY(mutex_) = 0;
  int blocked_appenders_ ABSL_GUARDED_BY(mutex_) = 0;  // waiting for space: write now
  // A new file's first bytes are written without the batch delay: the file
  // appears as soon as WarcWriter::Create (or a rotation) queues its warcinfo,
  // as it did before batching, so a writer of the same prefix started soon
  // after picks the next index.
  bool new_file_queued_ ABSL_GUARDED_BY(mutex_) = false;
  std::string last_path_ ABSL_GUARDED_BY(mutex_);
  bool finishing_ ABSL_GUARDED_BY(mutex_) = false;
  absl::Status error_ ABSL_GUARDED_BY(mutex_);
  // Sync calls made and served; a served one covers every call before it.
  uint64_t sync_requested_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t sync_done_ ABSL_GUARDED_BY(mutex_) = 0;
  bool thread_done_ ABSL_GUARDED_BY(mutex_) = false;
  std::condition_variable synced_;

  // Only the writer thread touches these. Declared before thread_ so they are
  // initialized before it starts.
  int fd_ = -1;
  std::string open_path_;

  std::thread thread_;
};

}  // namespace crawler::warc_internal

#endif  // CRAWLER_SRC_WARC_DISK_WRITER_H_
