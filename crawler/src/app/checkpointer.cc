#include "app/checkpointer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "app/crawl_setup.h"
#include "app/redis_frontier.h"
#include "spdlog/spdlog.h"

namespace crawler {
namespace {

// The log's bytes reach the disk before a checkpoint counts them.
absl::Status SyncFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return absl::UnavailableError(absl::StrCat("open ", path, ": ", std::strerror(errno)));
  const bool synced = ::fsync(fd) == 0;
  const int saved_errno = errno;
  ::close(fd);
  if (synced) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat("fsync ", path, ": ", std::strerror(saved_errno)));
}

// The device of `path` or of its nearest existing ancestor (the spill dir
// may not exist yet); -1 if none can be found.
int64_t DeviceOf(std::filesystem::path path) {
  path = std::filesystem::absolute(path);
  while (true) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return static_cast<int64_t>(st.st_dev);
    if (!path.has_parent_path() || path.parent_path() == path) return -1;
    path = path.parent_path();
  }
}

// A checkpoint hard-links the Sieve's spilled segments when they are on the
// state directory's filesystem; elsewhere it must copy them, which makes
// every checkpoint's cost grow with the queue.
void WarnIfSpillElsewhere(const CrawlOptions& options) {
  if (options.state_dir.empty() || options.spill_dir.empty()) return;
  const int64_t spill = DeviceOf(options.spill_dir);
  const int64_t state = DeviceOf(options.state_dir);
  if (spill < 0 || state < 0 || spill == state) return;
  spdlog::warn(
      "--spill-dir {} is not on the filesystem of --state {}: checkpoints copy the spilled "
      "queue instead of linking it (put both under the same filesystem, as the defaults do)",
      options.spill_dir, options.state_dir);
}

}  // namespace

absl::StatusOr<CrawlStart> OpenCrawlStart(const CrawlOptions& options) {
  if (!options.frontier.empty()) return OpenRedisCrawlStart(options);
  WarnIfSpillElsewhere(options);
  CrawlStart start;
  if (options.resume) {
    absl::StatusOr<std::unique_ptr<CrawlStateDir>> state = CrawlStateDir::Open(options.state_dir);
    if (!state.ok()) return state.status();
    const std::filesystem::path folder = (*state)->checkpoint_dir();
    absl::StatusOr<std::unique_ptr<sieve::Sieve>> sieve =
        sieve::Sieve::Open(folder, SieveOptionsOf(options));
    if (!sieve.ok()) {
      return absl::Status(sieve.status().code(),
                          absl::StrCat(sieve::Sieve::CheckpointPath(folder).string(), ": ",
                                       sieve.status().message(), " (--fresh starts over)"));
    }
    start.state = *std::move(state);
    start.sieve = *std::move(sieve);
    start.resumed = true;
    return start;
  }
  if (!options.state_dir.empty()) {
    absl::StatusOr<std::unique_ptr<CrawlStateDir>> state =
        CrawlStateDir::Create(options.state_dir, options.fresh);
    if (!state.ok()) return state.status();
    start.state = *std::move(state);
  }
  absl::StatusOr<std::unique_ptr<sieve::Sieve>> sieve =
      sieve::Sieve::Create(SieveOptionsOf(options));
  if (absl::IsOutOfRange(sieve.status()) || absl::IsInvalidArgument(sieve.status())) {
    // The flags asked for a filter that cannot be built: a usage error
    // (exit 2) naming them, not a runtime failure.
    return absl::InvalidArgumentError(absl::StrCat("--expected ", options.expected,
                                                   " with --fp-rate ", options.fp_rate, ": ",
                                                   sieve.status().message()));
  }
  if (!sieve.ok()) return sieve.status();
  start.sieve = *std::move(sieve);
  return start;
}

const std::vector<std::string>& Checkpointer::SeedsOf(const CrawlStart& start,
                                                      const std::vector<std::string>& given) {
  return start.resumed ? *start.state->loaded().seeds : given;
}

Checkpointer::Checkpointer(const CrawlOptions& options, std::vector<std::string> seeds,
                           std::unique_ptr<CrawlStateDir> state, Parts parts)
    : options_(options),
      seeds_(std::make_shared<const std::vector<std::string>>(std::move(seeds))),
      state_(std::move(state)),
      parts_(parts) {}

absl::Status Checkpointer::Restore(const std::string& log_path) {
  const CrawlCheckpoint& loaded = state_->loaded();
  // A checkpoint from before version 4 has no counts: the crawl counts from
  // zero, as the build that wrote it did.
  if (parts_.traps != nullptr && !loaded.traps.empty()) {
    absl::Status traps = parts_.traps->Decode(
        loaded.traps, (state_->checkpoint_dir() / kCrawlStateTrapsFile).string());
    if (!traps.ok()) return traps;
  }
  absl::StatusOr<int64_t> kept = RepairPageLog(log_path, loaded.log_bytes);
  if (!kept.ok()) return kept.status();
  parts_.frontier->Restore(loaded.frontier);
  parts_.stats->Restore(loaded.counters);
  parts_.stats->hosts().Restore(loaded.counters);
  if (parts_.policy != nullptr) {
    std::map<std::string, std::string> dropped;
    for (const HostSummary& h : loaded.counters.hosts) {
      if (!h.dropped.empty()) dropped.emplace(h.authority, h.dropped);
    }
    parts_.policy->RestoreDropped(dropped);
  }
  prior_seconds_ = loaded.counters.duration_s;
  spdlog::info(
      "resuming from {}: {} pages done, {} URLs queued again; {} records written after the "
      "checkpoint kept in {} (their pages are fetched again)",
      state_->checkpoint_dir().string(), loaded.counters.pages, parts_.sieve->Stats().queued, *kept,
      log_path);
  return absl::OkStatus();
}

bool Checkpointer::KeepForResume(bool stopping, const FetchResult& result) const {
  return enabled() && stopping && result.error.rfind(kFetchAborted, 0) == 0;
}

absl::StatusOr<CrawlCheckpoint> Checkpointer::Capture(const std::filesystem::path& dir,
                                                      PageLog* log, double crawl_seconds) {
  std::unique_lock<std::shared_mutex> lock(commit_mu_);  // no commit in between
  CrawlCheckpoint checkpoint;
  checkpoint.options = options_;
  checkpoint.seeds = seeds_;
  absl::Status flushed = log->Flush();
  if (!flushed.ok()) return flushed;
  absl::Status synced = SyncFile(log->path());
  if (!synced.ok()) return synced;
  std::error_code ec;
  checkpoint.log_bytes = static_cast<int64_t>(std::filesystem::file_size(log->path(), ec));
  if (ec) return absl::UnavailableError(absl::StrCat(log->path(), ": ", ec.message()));
  if (parts_.sync_archive) {
    absl::Status archived = parts_.sync_archive();
    if (!archived.ok()) return archived;
  }
  if (parts_.cookies) checkpoint.cookies = parts_.cookies();
  if (parts_.traps != nullptr) checkpoint.traps = parts_.traps->Encode();
  checkpoint.counters = parts_.stats->Snapshot();
  checkpoint.counters.duration_s = crawl_seconds;
  parts_.stats->hosts().Fill(
      parts_.policy != nullptr ? parts_.policy->Dropped() : std::map<std::string, std::string>{},
      &checkpoint.counters, HostStats::kMaxTracked);
  absl::StatusOr<FrontierSnapshot> frontier =
      parts_.frontier->Checkpoint([&] { return parts_.sieve->Save(dir); });
  if (!frontier.ok()) return frontier.status();
  checkpoint.frontier = *std::move(frontier);
  return checkpoint;
}

absl::Status Checkpointer::Take(PageLog* log, double crawl_seconds) {
  if (!enabled()) return absl::OkStatus();
  last_ = absl::Now();
  absl::Status written = state_->Write(
      [&](const std::filesystem::path& dir) { return Capture(dir, log, crawl_seconds); });
  if (!written.ok()) return written;
  // The scale benchmark reads this line (and the summary's fields).
  spdlog::info("checkpoint {} written in {} ms, {} bytes", state_->written(),
               state_->last_write_ms(), state_->last_write_bytes());
  return absl::OkStatus();
}

absl::Status Checkpointer::TakeIfDue(PageLog* log, double crawl_seconds) {
  if (!enabled() || absl::Now() - last_ < absl::Seconds(options_.checkpoint_every_s)) {
    return absl::OkStatus();
  }
  return Take(log, crawl_seconds);
}

}  // namespace crawler
