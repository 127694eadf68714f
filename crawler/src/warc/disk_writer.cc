#include "warc/disk_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace crawler::warc_internal {
namespace {

absl::Status ErrnoStatus(absl::string_view what, const std::string& path) {
  return absl::InternalError(absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

}  // namespace

DiskWriter::DiskWriter(size_t queue_limit_bytes)
    : queue_limit_bytes_(queue_limit_bytes), thread_([this] { Run(); }) {}

DiskWriter::~DiskWriter() { Finish().IgnoreError(); }

absl::Status DiskWriter::Append(const std::string& path, std::string bytes) {
  std::unique_lock lock(mutex_);
  // Wait while full, but always admit into an empty queue so that a record
  // larger than the limit still passes.
  space_ready_.wait(lock, [&] {
    return finishing_ || !error_.ok() || queued_bytes_ == 0 ||
           queued_bytes_ + bytes.size() <= queue_limit_bytes_;
  });
  if (!error_.ok()) return error_;
  if (finishing_) return absl::FailedPreconditionError("WARC writer is closed");
  queued_bytes_ += bytes.size();
  queue_.push_back({path, std::move(bytes)});
  work_ready_.notify_one();
  return absl::OkStatus();
}

uint64_t DiskWriter::QueuedBytes() const {
  std::lock_guard lock(mutex_);
  return queued_bytes_;
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

void DiskWriter::Run() {
  std::unique_lock lock(mutex_);
  while (true) {
    work_ready_.wait(lock, [&] { return finishing_ || !queue_.empty(); });
    if (queue_.empty()) break;  // finishing and drained
    std::deque<Chunk> batch;
    batch.swap(queue_);
    lock.unlock();
    absl::Status status;
    uint64_t done = 0;
    for (const Chunk& chunk : batch) {
      if (status.ok()) status = WriteChunk(chunk);
      done += chunk.bytes.size();
    }
    lock.lock();
    queued_bytes_ -= done;
    if (!status.ok() && error_.ok()) error_ = status;
    space_ready_.notify_all();
  }
  lock.unlock();
  absl::Status closed = CloseFile();
  lock.lock();
  if (!closed.ok() && error_.ok()) error_ = closed;
}

absl::Status DiskWriter::WriteChunk(const Chunk& chunk) {
  if (chunk.path != open_path_) {
    if (absl::Status closed = CloseFile(); !closed.ok()) return closed;
    // O_EXCL: never overwrite an archive, even if two crawls share a prefix.
    fd_ = ::open(chunk.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ < 0) return ErrnoStatus("cannot create", chunk.path);
    open_path_ = chunk.path;
  }
  const char* data = chunk.bytes.data();
  size_t left = chunk.bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("cannot write", open_path_);
    data += n;
    left -= static_cast<size_t>(n);
  }
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
