#include "spill_store.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "log_emit.h"

namespace sieve::internal {

namespace fs = std::filesystem;

SpillStore::SpillStore(fs::path spill_dir, LogSink log)
    : spill_dir_(std::move(spill_dir)), log_(std::move(log)) {}

SpillStore::~SpillStore() {
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

void SpillStore::SpillWritten(uint64_t file_bytes) {
  disk_bytes_ += file_bytes;
  ++spilled_files_;
  if (!spill_error_.ok()) {
    Emit(log_, LogLevel::kInfo,
         absl::StrCat("sieve: spilling to ", private_dir_.string(), " works again"));
  }
  spill_error_ = absl::OkStatus();
}

void SpillStore::SpillFailed(const absl::Status& status) {
  // The segment stays in memory rather than lose URLs; the budget is exceeded
  // and Health() says so until a spill succeeds again.
  ++spill_failures_;
  if (spill_error_.ok()) {
    Emit(log_, LogLevel::kError,
         absl::StrCat("sieve: cannot spill queued URLs to disk, keeping them in memory "
                      "(over queue_memory_budget_bytes): ",
                      status.ToString()));
  }
  spill_error_ = absl::Status(
      status.code(),
      absl::StrCat("cannot spill queued URLs to ", spill_dir_.string(), " (", spill_failures_,
                   " segments kept in memory over the budget so far): ", status.message()));
}

void SpillStore::SpillRemoved(uint64_t file_bytes) {
  disk_bytes_ -= file_bytes;
  --spilled_files_;
}

void SpillStore::FileAdopted(uint64_t file_bytes) {
  disk_bytes_ += file_bytes;
  ++spilled_files_;
}

void SpillStore::LoadFailed(const absl::Status& status) {
  if (load_error_.ok()) load_error_ = status;
}

absl::Status SpillStore::Health() const {
  if (!load_error_.ok()) return load_error_;
  return spill_error_;
}

}  // namespace sieve::internal
