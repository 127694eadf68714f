// The warning the design asks for when more distinct URLs arrive than the
// filter was sized for: logged once when the filter's estimated count n^
// passes its capacity n, then again at 2n, 4n, ... and never once per URL.
//
// Estimator: n^ is bloom::BloomFilter::EstimatedCount(), from the fill ratio
// (n^ = -(m/k) ln(1 - X/m) for the classic layout; bloom/filter.h gives the
// blocked form), within 1-2% of the truth below 50% fill. Computing it is cheap
// but not free, so the hot path only compares the accepted-push count (an exact
// count of inserted URLs, which n^ tracks) with the next check point; only
// then is n^ read.
//
//   OverflowWarner warner(filter.Capacity(), /*warnings_so_far=*/0);
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

// The text of the warning: the numbers and what to do about it.
std::string FormatOverflowWarning(double estimated_count, uint64_t capacity, double current_fp_rate,
                                  double target_fp_rate);

class OverflowWarner {
 public:
  // `warnings_so_far` restores the state of a checkpointed Sieve: the next
  // warning is at capacity * 2^warnings_so_far.
  OverflowWarner(uint64_t capacity, uint64_t warnings_so_far);

  bool Due(uint64_t accepted) const {
    return accepted >= next_check_.load(std::memory_order_relaxed);
  }
  // Reads n^; if it passed the threshold, sends the warning to `log` (empty:
  // StderrLogSink) and doubles the threshold.
  void Check(uint64_t accepted, const SeenFilter& filter, const LogSink& log);
  uint64_t warnings() const { return warnings_.load(std::memory_order_relaxed); }

 private:
  uint64_t Threshold(uint64_t warnings) const;

  const uint64_t capacity_;
  std::mutex mutex_;
  std::atomic<uint64_t> warnings_;
  std::atomic<uint64_t> next_check_;
};

}  // namespace sieve::internal

#endif  // SIEVE_SRC_OVERFLOW_WARNING_H_
