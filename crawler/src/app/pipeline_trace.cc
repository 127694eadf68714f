#include "app/pipeline_trace.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace crawler {
namespace {

// The process's CPU time so far (all threads, user and system), in ms.
int64_t ProcessCpuMs() {
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return -1;
  const auto ms = [](const timeval& t) { return int64_t{t.tv_sec} * 1000 + t.tv_usec / 1000; };
  return ms(usage.ru_utime) + ms(usage.ru_stime);
}

// Lines are kept in memory this long before they are written: ~100 lines.
constexpr size_t kWriteEveryBytes = 8 << 10;

}  // namespace

absl::StatusOr<std::unique_ptr<PipelineTrace>> PipelineTrace::Start(
    const std::string& path, absl::Duration period, std::function<PipelineSample()> sample) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) {
    return absl::PermissionDeniedError(
        absl::StrCat("--debug-pipeline ", path, ": ", std::strerror(errno)));
  }
  std::fputs(kPipelineTraceHeader, file);
  return std::unique_ptr<PipelineTrace>(new PipelineTrace(file, period, std::move(sample)));
}

PipelineTrace::PipelineTrace(std::FILE* file, absl::Duration period,
                             std::function<PipelineSample()> sample)
    : file_(file), period_(period), sample_(std::move(sample)), thread_([this] { Loop(); }) {}

PipelineTrace::~PipelineTrace() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
  Record();
  std::fwrite(pending_.data(), 1, pending_.size(), file_);
  std::fclose(file_);
}

void PipelineTrace::Loop() {
  absl::Time next = start_;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    lock.unlock();
    Record();
    if (pending_.size() >= kWriteEveryBytes) {
      std::fwrite(pending_.data(), 1, pending_.size(), file_);
      pending_.clear();
    }
    lock.lock();
    next += period_;
    const absl::Duration left = next - absl::Now();
    if (left > absl::ZeroDuration()) {
      cv_.wait_for(lock, absl::ToChronoNanoseconds(left), [this] { return stopping_; });
    } else {
      next = absl::Now();  // behind (the machine is busy): no burst of catch-up samples
    }
  }
}

void PipelineTrace::Record() {
  const PipelineSample s = sample_();
  const int64_t t_ms = absl::ToInt64Milliseconds(absl::Now() - start_);
  absl::StrAppend(&pending_, t_ms, "\t", ProcessCpuMs(), "\t", s.scheduled, "\t", s.fetch_queued,
                  "\t", s.fetch_running, "\t", s.parse_jobs, "\t", s.parse_bytes, "\t",
                  s.frontier_buffered, "\t", s.sieve_queued, "\t", std::string(1, s.waiting), "\t",
                  s.sleeps_total, "\t", s.woken_total, "\t", s.submitted_total, "\t",
                  s.parsed_total, "\n");
}

}  // namespace crawler
