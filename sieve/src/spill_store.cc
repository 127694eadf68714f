#include "spill_store.h"

#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "file_io.h"
#include "log_emit.h"

namespace sieve::internal {

namespace fs = std::filesystem;

SpillFile::~SpillFile() {
  if (!written_) return;
  std::error_code ignored;
  fs::remove(path_, ignored);
  store_.SpillRemoved(bytes_);
}

void SpillFile::SetWritten(uint64_t bytes, std::string name) {
  if (written_) return;
  written_ = true;
  bytes_ = bytes;
  name_ = std::move(name);
}

size_t SpillJob::AddPart(Segment segment) {
  Part& part = parts.emplace_back();
  part.bytes = segment.MemoryBytes();
  part.segment = std::move(segment);
  return parts.size() - 1;
}

size_t SpillJob::Bytes() const {
  size_t bytes = 0;
  for (const Part& part : parts) bytes += part.bytes;
  return bytes;
}

SpillStore::SpillStore(fs::path spill_dir, LogSink log, size_t max_unwritten_bytes)
    : spill_dir_(std::move(spill_dir)),
      log_(std::move(log)),
      max_unwritten_bytes_(max_unwritten_bytes) {}

SpillStore::~SpillStore() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (writer_.joinable()) writer_.join();
  if (private_dir_.empty()) return;
  std::error_code ignored;
  fs::remove_all(private_dir_, ignored);
}

absl::StatusOr<fs::path> SpillStore::NewFilePath() {
  if (private_dir_.empty()) {
    std::string pattern = (spill_dir_ / "sieve-spill-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      return absl::InternalError(absl::StrCat("cannot create a spill directory in ",
                                              spill_dir_.string(), ": ", std::strerror(errno)));
    }
    private_dir_ = pattern;
  }
  return private_dir_ / absl::StrCat("segment-", next_file_number_++, ".spill");
}

absl::StatusOr<SpillTarget> SpillStore::NewTarget() {
  absl::StatusOr<fs::path> path = NewFilePath();
  if (!path.ok()) return path.status();
  SpillTarget target;
  target.job = std::make_shared<SpillJob>();
  target.job->file = *path;
  target.file = std::make_shared<SpillFile>(*this, *std::move(path));
  return target;
}

void SpillStore::Submit(std::shared_ptr<SpillJob> job) {
  const size_t bytes = job->Bytes();
  held_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  std::unique_lock<std::mutex> lock(mutex_);
  if (!writer_.joinable()) writer_ = std::thread([this] { WriterLoop(); });
  changed_.wait(lock, [&] { return HasRoomLocked(bytes); });
  unwritten_bytes_ += bytes;
  job->unwritten_bytes = bytes;
  jobs_.push_back(std::move(job));
  lock.unlock();
  changed_.notify_all();
}

bool SpillStore::HasRoomLocked(size_t job_bytes) const {
  return jobs_.size() + writing_ < kMaxUnwrittenSegments ||
         unwritten_bytes_ + job_bytes <= max_unwritten_bytes_;
}

bool SpillStore::HasRoomFor(size_t job_bytes) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return HasRoomLocked(job_bytes);
}

SpillJob::State SpillStore::Settle(SpillJob& job, size_t part, bool cancel) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (cancel && job.state == SpillJob::State::kQueued) {
    SpillJob::Part& taken = job.parts[part];
    if (!taken.cancelled) {
      taken.cancelled = true;
      unwritten_bytes_ -= taken.bytes;
      job.unwritten_bytes -= taken.bytes;
    }
    const bool all_cancelled =
        std::all_of(job.parts.begin(), job.parts.end(),
                    [](const SpillJob::Part& each) { return each.cancelled; });
    if (all_cancelled) {
      auto it = std::find_if(
          jobs_.begin(), jobs_.end(),
          [&](const std::shared_ptr<SpillJob>& queued) { return queued.get() == &job; });
      if (it != jobs_.end()) jobs_.erase(it);
      unwritten_bytes_ -= job.unwritten_bytes;
      job.unwritten_bytes = 0;
      job.state = SpillJob::State::kCancelled;
    }
    lock.unlock();
    changed_.notify_all();  // a Submit may be waiting for room
    return SpillJob::State::kCancelled;
  }
  changed_.wait(lock, [&] {
    return job.state != SpillJob::State::kQueued && job.state != SpillJob::State::kWriting;
  });
  return job.state;
}

void SpillStore::Release(SpillJob::Part& part) {
  held_bytes_.fetch_sub(part.bytes, std::memory_order_relaxed);
  part.bytes = 0;
}

void SpillStore::WaitForWrites() const {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return jobs_.empty() && writing_ == 0; });
}

size_t SpillStore::Unwritten() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return jobs_.size() + writing_;
}

void SpillStore::PauseWriterForTesting(bool paused) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    paused_ = paused;
  }
  changed_.notify_all();
}

absl::Status SpillStore::WriteJob(SpillJob& job, int level, uint64_t& file_bytes,
                                  std::string& name) {
  std::string bytes;
  std::vector<SegmentFileInfo> written;
  for (SpillJob::Part& part : job.parts) {
    if (part.cancelled) continue;  // taken back by its queue: not ours to read
    absl::StatusOr<std::string> record = writer_compressor_.Encode(
        part.segment.RemainingBytes(), part.segment.Remaining(), part.info, level);
    if (!record.ok()) return record.status();
    part.offset = bytes.size();
    if (bytes.empty()) {
      bytes = *std::move(record);
    } else {
      bytes.append(*record);
    }
    written.push_back(part.info);
  }
  file_bytes = bytes.size();
  name = written.size() == 1 ? SegmentFileName(written[0].checksum) : PackFileName(written);
  absl::Status status = WriteWholeFile(job.file, bytes);
  if (!status.ok()) {
    std::error_code ignored;
    fs::remove(job.file, ignored);  // no partial file left behind
  }
  return status;
}

void SpillStore::WriterLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stop_ || (!paused_ && !jobs_.empty()); });
    if (stop_) return;  // jobs still queued belong to queues already gone
    std::shared_ptr<SpillJob> job = std::move(jobs_.front());
    jobs_.pop_front();
    job->state = SpillJob::State::kWriting;
    writing_ = 1;
    // Segments waiting behind this one: pushes are outrunning the writer.
    const bool burst = !jobs_.empty();
    if (burst) ++burst_writes_;
    lock.unlock();
    // The queue does not touch the job until it is settled, so the segment
    // is read and freed here without the lock.
    uint64_t file_bytes = 0;
    std::string name;
    const absl::Status status =
        WriteJob(*job, burst ? kSegmentBurstZstdLevel : kSegmentZstdLevel, file_bytes, name);
    if (status.ok()) {
      for (SpillJob::Part& part : job->parts) {
        if (part.cancelled) continue;
        // Moved out, not assigned an empty Segment: a moved-into std::string
        // keeps its buffer (libstdc++), and the job lives until popped.
        const Segment released = std::move(part.segment);
        Release(part);
      }
    }
    lock.lock();
    writing_ = 0;
    unwritten_bytes_ -= job->unwritten_bytes;
    std::string message;
    if (status.ok()) {
      job->file_bytes = file_bytes;
      job->name = std::move(name);
      job->state = SpillJob::State::kWritten;
      message = RecordWritten(file_bytes);
    } else {
      job->state = SpillJob::State::kFailed;
      message = RecordFailed(status);
    }
    lock.unlock();
    changed_.notify_all();
    if (!message.empty()) {
      Emit(log_, status.ok() ? LogLevel::kInfo : LogLevel::kError, message);
    }
    job.reset();
    lock.lock();
  }
}

std::string SpillStore::RecordWritten(uint64_t file_bytes) {
  disk_bytes_ += file_bytes;
  ++spilled_files_;
  std::string message;
  if (!spill_error_.ok()) {
    message = absl::StrCat("sieve: spilling to ", private_dir_.string(), " works again");
  }
  spill_error_ = absl::OkStatus();
  return message;
}

std::string SpillStore::RecordFailed(const absl::Status& status) {
  // The segment stays in memory rather than lose URLs; the budget is exceeded
  // and Health() says so until a spill succeeds again.
  ++spill_failures_;
  std::string message;
  if (spill_error_.ok()) {
    message = absl::StrCat(
        "sieve: cannot spill queued URLs to disk, keeping them in memory "
        "(over queue_memory_budget_bytes): ",
        status.ToString());
  }
  spill_error_ = absl::Status(
      status.code(),
      absl::StrCat("cannot spill queued URLs to ", spill_dir_.string(), " (", spill_failures_,
                   " segments kept in memory over the budget so far): ", status.message()));
  return message;
}

void SpillStore::SpillFailed(const absl::Status& status) {
  std::string message;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    message = RecordFailed(status);
  }
  if (!message.empty()) Emit(log_, LogLevel::kError, message);
}

void SpillStore::SpillRemoved(uint64_t file_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  disk_bytes_ -= file_bytes;
  --spilled_files_;
}

void SpillStore::FileAdopted(uint64_t file_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  disk_bytes_ += file_bytes;
  ++spilled_files_;
}

void SpillStore::LoadFailed(const absl::Status& status) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (load_error_.ok()) load_error_ = status;
}

absl::Status SpillStore::Health() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!load_error_.ok()) return load_error_;
  return spill_error_;
}

uint64_t SpillStore::SpillFailures() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return spill_failures_;
}

uint64_t SpillStore::DiskBytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return disk_bytes_;
}

uint64_t SpillStore::BurstWrites() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return burst_writes_;
}

size_t SpillStore::SpilledFiles() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return spilled_files_;
}

}  // namespace sieve::internal
