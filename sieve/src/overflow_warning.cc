#include "overflow_warning.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"
#include "log_emit.h"

namespace sieve::internal {
namespace {

std::string Count(double n) {
  return std::isfinite(n) ? absl::StrFormat("%.0f", n) : std::string("an unknown number of");
}

// Human sizes: "512 bytes", "62.5 KiB", "2.29 MiB", "1.25 GiB" (a tiny
// filter read "6.1e-05 MiB" when every size was in MiB).
std::string Mib(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes < 1024) return absl::StrFormat("%d bytes", bytes);
  if (bytes < (uint64_t{1} << 20)) return absl::StrFormat("%.3g KiB", b / 1024);
  if (bytes < (uint64_t{1} << 30)) return absl::StrFormat("%.3g MiB", b / (1 << 20));
  return absl::StrFormat("%.3g GiB", b / (1 << 30));
}

}  // namespace

OverflowFigures FiguresOf(const SeenFilter& filter) {
  OverflowFigures f;
  f.policy = filter.policy();
  f.estimated_count = filter.EstimatedCount();
  f.expected_count = filter.InitialCapacity();
  const double rate = filter.CurrentFpRate();
  f.current_fp_rate = std::isfinite(rate) ? std::clamp(rate, 0.0, 1.0) : 1.0;
  f.target_fp_rate = filter.TargetFpRate();
  f.memory_bytes = filter.MemoryBytes();
  f.stages = filter.StageCount();
  f.at_memory_cap = filter.AtMemoryCap();
  return f;
}

std::string FormatOverflowWarning(const OverflowFigures& f) {
  const std::string held = absl::StrFormat(
      "sieve: the filter holds about %s distinct URLs, more than SieveOptions::expected_count = "
      "%d",
      Count(f.estimated_count), f.expected_count);
  if (f.policy == OverflowPolicy::kGrow && f.at_memory_cap) {
    return absl::StrFormat(
        "%s; OverflowPolicy::kGrow reached SieveOptions::filter_memory_max_bytes: the filter "
        "takes %s in %d stages and adds no more, so from here it fills as under "
        "OverflowPolicy::kWarn: its false-positive rate is now %.4g and rises past %.4g, and "
        "more new URLs are wrongly dropped as seen (this is said once)",
        held, Mib(f.memory_bytes), f.stages, f.current_fp_rate, f.target_fp_rate);
  }
  if (f.policy == OverflowPolicy::kGrow) {
    return absl::StrFormat(
        "%s; OverflowPolicy::kGrow added stages: the filter now takes %s in %d stages and its "
        "false-positive rate stays under %.4g (now %.4g). Memory doubles with each doubling of "
        "the count; cap it with SieveOptions::filter_memory_max_bytes",
        held, Mib(f.memory_bytes), f.stages, f.target_fp_rate, f.current_fp_rate);
  }
  return absl::StrFormat(
      "%s; OverflowPolicy::kWarn keeps its memory at %s, so its false-positive rate is now "
      "%.4g (sized for %.4g) and more new URLs are wrongly dropped as seen. Use a larger "
      "SieveOptions::expected_count (at least %s) or OverflowPolicy::kGrow",
      held, Mib(f.memory_bytes), f.current_fp_rate, f.target_fp_rate,
      std::isfinite(f.estimated_count) ? Count(2 * f.estimated_count) : "10x as large");
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
  const OverflowFigures figures = FiguresOf(filter);
  const bool cap_now = figures.at_memory_cap && !cap_reported_;
  if (cap_now) {
    cap_reported_ = true;
    Emit(log, LogLevel::kWarning, FormatOverflowWarning(figures));
  }
  if (figures.estimated_count < static_cast<double>(threshold)) {
    // n^ lags the exact count slightly (or the fill is still below); look
    // again after 1/64 of the threshold more URLs rather than on every push.
    next_check_.store(accepted + std::max<uint64_t>(threshold / 64, 1), std::memory_order_relaxed);
    return;
  }
  if (!cap_now) {
    OverflowFigures shown = figures;
    if (figures.at_memory_cap) shown.policy = OverflowPolicy::kWarn;  // it behaves as kWarn now
    Emit(log, LogLevel::kWarning, FormatOverflowWarning(shown));
  }
  const uint64_t warnings = warnings_.fetch_add(1, std::memory_order_relaxed) + 1;
  next_check_.store(Threshold(warnings), std::memory_order_relaxed);
}

}  // namespace sieve::internal
