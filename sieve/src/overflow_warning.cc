#include "overflow_warning.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_format.h"
#include "log_emit.h"

namespace sieve::internal {

std::string FormatOverflowWarning(double estimated_count, uint64_t capacity, double current_fp_rate,
                                  double target_fp_rate) {
  return absl::StrFormat(
      "sieve: the filter holds about %.0f distinct URLs, more than its capacity of %d: its "
      "false-positive rate is now %.4g (sized for %.4g), so more new URLs are wrongly dropped "
      "as seen. Size the Sieve for more URLs (SieveOptions::expected_count at least %.0f) "
      "or let the filter grow (SieveOptions::overflow_policy = OverflowPolicy::kGrow, the "
      "\"grow\" overflow policy).",
      estimated_count, capacity, current_fp_rate, target_fp_rate, 2 * estimated_count);
}

OverflowWarner::OverflowWarner(uint64_t capacity, uint64_t warnings_so_far)
    : capacity_(std::max<uint64_t>(capacity, 1)),
      warnings_(warnings_so_far),
      next_check_(Threshold(warnings_so_far)) {}

uint64_t OverflowWarner::Threshold(uint64_t warnings) const {
  if (warnings >= 63 || capacity_ > (std::numeric_limits<uint64_t>::max() >> warnings)) {
    return std::numeric_limits<uint64_t>::max();
  }
  return capacity_ << warnings;
}

void OverflowWarner::Check(uint64_t accepted, const SeenFilter& filter, const LogSink& log) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!Due(accepted)) return;  // another thread checked meanwhile
  const uint64_t threshold = Threshold(warnings());
  const double estimated = filter.EstimatedCount();
  if (estimated < static_cast<double>(threshold)) {
    // n^ lags the exact count slightly (or the fill is still below); look
    // again after 1/64 of the threshold more URLs rather than on every push.
    next_check_.store(accepted + std::max<uint64_t>(threshold / 64, 1), std::memory_order_relaxed);
    return;
  }
  Emit(log, LogLevel::kWarning,
       FormatOverflowWarning(estimated, filter.Capacity(), filter.CurrentFpRate(),
                             filter.TargetFpRate()));
  const uint64_t warnings = warnings_.fetch_add(1, std::memory_order_relaxed) + 1;
  next_check_.store(Threshold(warnings), std::memory_order_relaxed);
}

}  // namespace sieve::internal
