// The warning the design asks for when more distinct URLs arrive than the
// filter was sized for: logged once when the filter's estimated count n^
// passes SieveOptions::expected_count n, then again at 2n, 4n, ... and never
// once per URL. It speaks in the library's terms (SieveOptions fields and the
// OverflowPolicy) and says what the filter costs now:
//   kWarn   memory fixed, the rate a new URL sees now (rising past p);
//   kGrow   the memory the added stages take, the rate still under p;
//   kGrow at SieveOptions::filter_memory_max_bytes: said once, then the
//           filter fills as under kWarn and the kWarn text follows.
//
// Estimator: n^ is bloom::BloomFilter::EstimatedCount(), from the fill ratio
// (n^ = -(m/k) ln(1 - X/m) for the classic layout; bloom/filter.h gives the
// blocked form), within 1-2% of the truth below 50% fill (a grown filter sums
// its stages'). Computing it is cheap but not free, so the hot path only
// compares the accepted-push count (an exact count of inserted URLs, which n^
// tracks) with the next check point; only then is n^ read.
//
//   OverflowWarner warner(filter.InitialCapacity(), /*warnings_so_far=*/0);
//   if (warner.Due(accepted)) warner.Check(accepted, filter, options.log_sink);
//
// Threading: Due is lock-free; Check serializes itself.
#ifndef SIEVE_SRC_OVERFLOW_WARNING_H_
#define SIEVE_SRC_OVERFLOW_WARNING_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "seen_filter.h"
#include "sieve/log.h"

namespace sieve::internal {

// What the warning reports, read from the filter when it fires.
struct OverflowFigures {
  OverflowPolicy policy = OverflowPolicy::kWarn;
  double estimated_count = 0;  // n^; infinite when saturated
  uint64_t expected_count = 0;
  double current_fp_rate = 0;
  double target_fp_rate = 0;
  uint64_t memory_bytes = 0;
  size_t stages = 1;
  bool at_memory_cap = false;  // kGrow stopped at filter_memory_max_bytes
};
OverflowFigures FiguresOf(const SeenFilter& filter);

// The text of the warning: the numbers and what to do about it.
std::string FormatOverflowWarning(const OverflowFigures& figures);

class OverflowWarner {
 public:
  // `warnings_so_far` restores the state of a checkpointed Sieve: the next
  // warning is at capacity * 2^warnings_so_far.
  OverflowWarner(uint64_t capacity, uint64_t warnings_so_far);

  bool Due(uint64_t accepted) const {
    return accepted >= next_check_.load(std::memory_order_relaxed);
  }
  // Reads n^; if it passed the threshold, logs the warning and doubles the
  // threshold. A grown filter that reached its memory cap is reported at once
  // (once), whatever the threshold.
  // The warning goes to `log` (empty: StderrLogSink).
  void Check(uint64_t accepted, const SeenFilter& filter, const LogSink& log);
  uint64_t warnings() const { return warnings_.load(std::memory_order_relaxed); }

 private:
  uint64_t Threshold(uint64_t warnings) const;

  const uint64_t capacity_;
  std::mutex mutex_;
  bool cap_reported_ = false;  // guarded by mutex_
  std::atomic<uint64_t> warnings_;
  std::atomic<uint64_t> next_check_;
};

}  // namespace sieve::internal

#endif  // SIEVE_SRC_OVERFLOW_WARNING_H_
