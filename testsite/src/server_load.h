// ServerLoad: how a site reacts to the rate it is asked at, for the
// adaptive-delay benchmark and tests:
//   - a token bucket of `rate_limit` requests a second and `rate_burst`
//     tokens: a request that finds it empty is refused (429), as a
//     server's rate limiter does;
//   - latency that grows with load: every answer waits latency_ms x
//     recent_rate / load_capacity on top of latency_ms, recent_rate being
//     the arrival rate smoothed over ~1 s (an EWMA with a 1 s time
//     constant), so the latency is base x (1 + rate / capacity): 2x the base
//     at rate = capacity.
// Refused requests count as arrivals (they cost the server too).
//
//   ServerLoad load(options);
//   if (!load.Admit(now)) { status 429 }
//   absl::Duration extra = load.ExtraLatency(now);
//
// Memory: a few numbers. Threading: every method is safe to call
// concurrently (one lock).
#ifndef TESTSITE_SRC_SERVER_LOAD_H_
#define TESTSITE_SRC_SERVER_LOAD_H_

#include <chrono>
#include <mutex>

#include "absl/base/thread_annotations.h"
#include "testsite/site_options.h"

namespace testsite {

class ServerLoad {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ServerLoad(const SiteOptions& options);

  // Whether a site with these options needs one (rate limit or load latency).
  static bool Needed(const SiteOptions& options);

  // Counts one arrival at `now`; false when the bucket is empty (refuse it).
  bool Admit(Clock::time_point now);
  // The extra wait of a request admitted at `now` (0 without load_capacity).
  std::chrono::microseconds ExtraLatency(Clock::time_point now) const;

 private:
  const double rate_limit_;
  const double burst_;
  const double capacity_;
  const double base_ms_;
  mutable std::mutex mutex_;
  double tokens_ ABSL_GUARDED_BY(mutex_);
  double recent_rate_ ABSL_GUARDED_BY(mutex_) = 0;  // requests a second, EWMA
  Clock::time_point last_ ABSL_GUARDED_BY(mutex_);
  bool started_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace testsite

#endif  // TESTSITE_SRC_SERVER_LOAD_H_
