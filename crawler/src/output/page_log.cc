// PageLog: one FILE*, one mutex. Each record is serialized outside the lock,
// then written with a single fwrite of the line plus newline, so concurrent
// appends never interleave inside a line.
#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "crawler/output.h"

namespace crawler {
namespace {

// A checkpoint fsyncs the log (its length is part of the checkpoint). The
// kernel starts writing dirty pages back only after ~30 s, so that fsync
// used to write everything appended since the previous checkpoint while the
// crawl waited: 7 MB and ~30 ms at the end of a 22k-page crawl, a minute of
// records at every periodic one. Started every MiB, it waits for one MiB.
constexpr int64_t kWritebackStep = int64_t{1} << 20;

}  // namespace

absl::StatusOr<std::unique_ptr<PageLog>> PageLog::Open(const PageLogOptions& options) {
  if (options.flush_every < 1) {
    return absl::InvalidArgumentError("PageLogOptions.flush_every must be >= 1");
  }
  std::error_code ec;
  std::filesystem::create_directories(options.dir, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("cannot create output directory ", options.dir, ": ", ec.message()));
  }
  std::string path = (std::filesystem::path(options.dir) / options.file_name).string();
  std::FILE* file = std::fopen(path.c_str(), options.append ? "ab" : "wb");
  if (file == nullptr) {
    return absl::UnavailableError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  return std::unique_ptr<PageLog>(new PageLog(file, std::move(path), options));
}

PageLog::PageLog(std::FILE* file, std::string path, const PageLogOptions& options)
    : path_(std::move(path)), options_(options), file_(file), last_flush_(absl::Now()) {
  // A resumed log's earlier records went to disk with its checkpoint:
  // writeback starts after them, not over the whole file again.
  struct stat info {};
  if (::fstat(::fileno(file_), &info) == 0) writeback_from_ = info.st_size;
}

PageLog::~PageLog() { Close().IgnoreError(); }

absl::Status PageLog::Append(const PageRecord& record) {
  std::string line = PageRecordToJson(record);
  line.push_back('\n');
  std::lock_guard<std::mutex> lock(mu_);
  if (!error_.ok()) return error_;
  if (file_ == nullptr) return absl::FailedPreconditionError("PageLog is closed");
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size()) {
    error_ = absl::DataLossError(absl::StrCat("write to ", path_, ": ", std::strerror(errno)));
    return error_;
  }
  ++written_;
  ++unflushed_;
  if (unflushed_ >= options_.flush_every || absl::Now() - last_flush_ >= options_.flush_interval) {
    return FlushLocked();
  }
  return absl::OkStatus();
}

absl::Status PageLog::FlushLocked() {
  if (file_ == nullptr) return error_;
  if (std::fflush(file_) != 0) {
    error_ = absl::DataLossError(absl::StrCat("flush ", path_, ": ", std::strerror(errno)));
  }
  unflushed_ = 0;
  last_flush_ = absl::Now();
  if (error_.ok()) StartWritebackLocked();
  return error_;
}

void PageLog::StartWritebackLocked() {
  const off_t end = ::ftello(file_);
  if (end < 0 || end - writeback_from_ < kWritebackStep) return;
  // A hint: where the file system cannot (EINVAL, ESPIPE), the fsync does it all.
  ::sync_file_range(::fileno(file_), writeback_from_, end - writeback_from_, SYNC_FILE_RANGE_WRITE);
  writeback_from_ = end;
}

absl::Status PageLog::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  return FlushLocked();
}

absl::Status PageLog::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (file_ == nullptr) return error_;
  absl::Status status = FlushLocked();
  if (std::fclose(file_) != 0 && status.ok()) {
    status = absl::DataLossError(absl::StrCat("close ", path_, ": ", std::strerror(errno)));
  }
  file_ = nullptr;
  return status;
}

int64_t PageLog::Written() const {
  std::lock_guard<std::mutex> lock(mu_);
  return written_;
}

}  // namespace crawler
