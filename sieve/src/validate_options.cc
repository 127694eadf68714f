#include "validate_options.h"

#include <cmath>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace sieve::internal {
namespace {

namespace fs = std::filesystem;

absl::Status ResolveSpillDir(fs::path& dir) {
  std::error_code error;
  if (dir.empty()) {
    dir = fs::temp_directory_path(error);
    if (error) return absl::InvalidArgumentError("spill_dir: no temporary directory");
  }
  fs::create_directories(dir, error);
  if (error || !fs::is_directory(dir)) {
    return absl::InvalidArgumentError(
        absl::StrCat("spill_dir: cannot create directory ", dir.string(), ": ", error.message()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SieveOptions> ValidateOptions(const SieveOptions& options) {
  if (options.expected_count < 1) {
    return absl::InvalidArgumentError("expected_count must be at least 1");
  }
  if (!(options.fp_rate > 0 && options.fp_rate < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("fp_rate must be in (0, 1), not ", options.fp_rate));
  }
  if (options.queue_memory_budget_bytes < kMinQueueMemoryBudget) {
    return absl::InvalidArgumentError(absl::StrCat("queue_memory_budget_bytes must be at least ",
                                                   kMinQueueMemoryBudget, ", not ",
                                                   options.queue_memory_budget_bytes));
  }
  if (options.overflow_policy != OverflowPolicy::kWarn &&
      options.overflow_policy != OverflowPolicy::kGrow) {
    return absl::InvalidArgumentError("overflow_policy must be kWarn or kGrow");
  }
  SieveOptions resolved = options;
  if (absl::Status s = ResolveSpillDir(resolved.spill_dir); !s.ok()) return s;
  return resolved;
}

}  // namespace sieve::internal
