#include "warc/disk_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace crawler::warc_internal {
namespace {

absl::Status ErrnoStatus(absl::string_view what, const std::string& path) {
  return absl::InternalError(absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

constexpr size_t kBatchBytes = 256 << 10;

// Writes every byte of `bytes` to `fd`, resuming after short writes.
bool WriteAll(int fd, absl::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

DiskWriter::DiskWriter(size_t queue_limit_bytes, std::chrono::milliseconds max_delay)
    : queue_limit_bytes_(queue_limit_bytes),
      batch_bytes_(std::max<size_t>(1, std::min(kBatchBytes, queue_limit_bytes / 2))),
      max_delay_(max_delay),
      thread_([this] { Run(); }) {}

DiskWriter::~DiskWriter() { Finish().IgnoreError(); }

void DiskWriter::Batch::Add(const std::string& path, absl::string_view data) {
  if (runs.empty() || runs.back().path != path) runs.push_back({path, bytes.size()});
  bytes.append(data.data(), data.size());
  runs.back().end = bytes.size();
}

// Keeps the buffer for the next batch unless a backlog (a slow disk) grew it
// far past a batch: that memory goes back rather than staying resident.
void DiskWriter::Batch::Clear(size_t keep_capacity) {
  bytes.clear();
  if (bytes.capacity() > keep_capacity) std::string().swap(bytes);
  runs.clear();
}

absl::Status DiskWriter::Append(const std::string& path, absl::string_view bytes) {
  std::unique_lock lock(mutex_);
  // Wait while full, but always admit into an empty queue so that a record
  // larger than the limit still passes.
  const auto has_space = [&] {
    return finishing_ || !error_.ok() || queued_bytes_ == 0 ||
           queued_bytes_ + bytes.size() <= queue_limit_bytes_;
  };
  if (!has_space()) {
    ++blocked_appenders_;
    work_ready_.notify_one();  // a full queue is a batch: write it now
    space_ready_.wait(lock, has_space);
    --blocked_appenders_;
  }
  if (!error_.ok()) return error_;
  if (finishing_) return absl::FailedPreconditionError("WARC writer is closed");
  const bool was_empty = queue_.bytes.empty();
  if (path != last_path_) {
    new_file_queued_ = true;
    last_path_ = path;
  }
  queued_bytes_ += bytes.size();
  queue_.Add(path, bytes);
  // Wake the thread to start a batch's clock, or to write a full one; in
  // between, appends cost no system call.
  if (was_empty || BatchReady()) work_ready_.notify_one();
  return absl::OkStatus();
}

uint64_t DiskWriter::QueuedBytes() const {
  std::lock_guard lock(mutex_);
  return queued_bytes_;
}

absl::Status DiskWriter::Sync() {
  std::unique_lock lock(mutex_);
  const uint64_t ticket = ++sync_requested_;
  work_ready_.notify_one();
  synced_.wait(lock, [&] { return sync_done_ >= ticket || thread_done_; });
  return error_;
}

absl::Status DiskWriter::Finish() {
  {
    std::lock_guard lock(mutex_);
    finishing_ = true;
  }
  work_ready_.notify_all();
  space_ready_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  return error_;
}

bool DiskWriter::BatchReady() const {
  return finishing_ || blocked_appenders_ > 0 || new_file_queued_ || SyncPending() ||
         queued_bytes_ >= batch_bytes_;
}

void DiskWriter::Run() {
  std::unique_lock lock(mutex_);
  while (true) {
    work_ready_.wait(lock, [&] { return finishing_ || !queue_.bytes.empty() || SyncPending(); });
    work_ready_.wait_for(lock, max_delay_, [&] { return BatchReady(); });
    if (queue_.bytes.empty() && finishing_) break;  // drained
    // Sync calls made before the swap: their bytes are all in this batch.
    // (Only this thread moves sync_done_, so the check holds until the end.)
    const uint64_t covered = sync_requested_;
    const bool sync = covered > sync_done_;
    std::swap(written_, queue_);  // appenders fill the previous batch's buffer
    new_file_queued_ = false;
    lock.unlock();
    absl::Status status = WriteBatch(written_);
    const uint64_t done = written_.bytes.size();
    written_.Clear(4 * batch_bytes_);
    if (status.ok() && sync) status = SyncFile();
    lock.lock();
    queued_bytes_ -= done;
    if (!status.ok() && error_.ok()) error_ = status;
    if (sync) {
      sync_done_ = covered;
      synced_.notify_all();
    }
    space_ready_.notify_all();
  }
  lock.unlock();
  absl::Status closed = CloseFile();
  lock.lock();
  if (!closed.ok() && error_.ok()) error_ = closed;
  thread_done_ = true;  // the file is closed and fsynced: every Sync is served
  synced_.notify_all();
}

absl::Status DiskWriter::SyncFile() {
  if (fd_ < 0 || ::fsync(fd_) == 0) return absl::OkStatus();
  return ErrnoStatus("cannot fsync", open_path_);
}

// After a first error nothing more is written: a gap would shift offsets.
absl::Status DiskWriter::WriteBatch(const Batch& batch) {
  {
    std::lock_guard lock(mutex_);
    if (!error_.ok()) return absl::OkStatus();
  }
  size_t begin = 0;
  for (const Batch::Run& run : batch.runs) {
    const absl::string_view bytes(batch.bytes.data() + begin, run.end - begin);
    if (absl::Status s = WriteRun(run.path, bytes); !s.ok()) return s;
    begin = run.end;
  }
  return absl::OkStatus();
}

absl::Status DiskWriter::WriteRun(const std::string& path, absl::string_view bytes) {
  if (path != open_path_) {
    if (absl::Status opened = OpenFile(path); !opened.ok()) return opened;
  }
  if (!WriteAll(fd_, bytes)) return ErrnoStatus("cannot write", open_path_);
  return absl::OkStatus();
}

absl::Status DiskWriter::OpenFile(const std::string& path) {
  if (absl::Status closed = CloseFile(); !closed.ok()) return closed;
  // O_EXCL: never overwrite an archive, even if two crawls share a prefix.
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) return ErrnoStatus("cannot create", path);
  open_path_ = path;
  return absl::OkStatus();
}

absl::Status DiskWriter::CloseFile() {
  if (fd_ < 0) return absl::OkStatus();
  absl::Status status;
  if (::fsync(fd_) != 0) status = ErrnoStatus("cannot fsync", open_path_);
  if (::close(fd_) != 0 && status.ok()) status = ErrnoStatus("cannot close", open_path_);
  fd_ = -1;
  open_path_.clear();
  return status;
}

}  // namespace crawler::warc_internal
