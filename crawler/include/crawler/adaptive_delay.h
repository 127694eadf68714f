// AdaptiveDelay: one host's start interval under --adaptive-delay, moved by
// what the host's answers say, between a floor (--delay, or the host's
// [[hosts]] delay) and a cap. It works on the request rate r = 1 / delay:
//   - slow start: from `start` (1 s), r grows x 2^(1/4) per fast, successful
//     answer (doubling every 4 answers) until the first slow-down;
//   - then additive increase: r grows by (1 - backoff) x r_last / recover_answers
//     per fast, successful answer, r_last being the rate at the last
//     slow-down: the rate lost to a slow-down comes back over ~200 answers,
//     whatever the host's scale (4 s at 50 req/s, 100 s at 2 req/s);
//   - multiplicative decrease, r x backoff (0.7), on a 429 or 503, a 5xx, a
//     timeout or connection failure, or when the host's smoothed latency
//     passes slow_latency (1.5) x its baseline;
//   - hold (neither) while the smoothed latency is between warm_latency
//     (1.25) and slow_latency times the baseline.
// Latency is an answer's time from its request going out to its end
// (FetchOutcome::elapsed - sent_after), smoothed as the median of the
// host's last 15 (robust to the late answers of a busy crawler machine);
// the baseline is the smallest latency seen over the last one to two
// baseline_window (60 s), and no less than min_baseline (10 ms): below that,
// a loopback or LAN host's latency is the crawler's own scheduling noise.
// With a latency that grows with load as base x (1 + r / capacity), the rate
// settles where latency is 1.25-1.5x the baseline, below 2x.
// One slow-down per round trip: answers to requests that started before the
// last slow-down were sent at the old rate and change nothing (TCP's rule:
// one window, one decrease); a latency slow-down waits for 8 answers sent
// after it (the median must see the new rate). Increases never take the delay
// below half the host's observed gap between answers, so a host whose rate
// is held by --per-host, by latency or by a short queue does not bank a
// rate it never used.
// 429 at 20 req/s (the benchmark's token bucket): a slow-down per ~200
// answers, each losing the 1-3 requests in flight: ~1% answered 429, and
// the rate runs between 0.7 and 1.0 of the limit (0.85 on average).
//
//   AdaptiveDelay delay(options, /*floor=*/absl::ZeroDuration(), now);
//   delay.OnAnswer(outcome, now);              // after every fetch
//   absl::Duration interval = delay.Current(); // the host's start interval
//
// Memory: ~200 bytes a host (PolitePolicy keeps one per tracked host).
// Threading: not thread-safe; PolitePolicy calls it under its lock. Every
// time comes in as an argument (no clock read), so tests drive it directly.
#ifndef CRAWLER_ADAPTIVE_DELAY_H_
#define CRAWLER_ADAPTIVE_DELAY_H_

#include <array>
#include <cstdint>

#include "absl/time/time.h"
#include "crawler/host_queues.h"

namespace crawler {

struct AdaptiveDelayOptions {
  // A host's first delay (raised to its floor): the crawl's polite default
  // until the host has answered.
  absl::Duration start = absl::Seconds(1);
  // The slowest the adaptive delay gets; a Crawl-delay, Retry-After or
  // back-off above it still wins (PolitePolicy takes the largest).
  absl::Duration max_delay = absl::Seconds(10);
  // Rate factor of a slow-down: 0.7 keeps ~85% of the limit on average.
  double backoff = 0.7;
  // Answers over which a slow-down's lost rate comes back: more is fewer
  // 429s (about 2 per cycle) and a slower climb.
  int recover_answers = 200;
  double warm_latency = 1.25;  // at or above x baseline: no increase
  double slow_latency = 1.5;   // above x baseline: slow down
  absl::Duration min_baseline = absl::Milliseconds(10);
  absl::Duration baseline_window = absl::Seconds(60);
};

// How often the controllers moved (PolitePolicy::Stats, --metrics).
struct AdaptiveCounts {
  uint64_t slowdowns_refused = 0;  // 429 or 503 (Retry-After or not)
  uint64_t slowdowns_failed = 0;   // other 5xx, timeout, connect, reset, dns
  uint64_t slowdowns_latency = 0;  // smoothed latency above slow_latency x baseline
};

class AdaptiveDelay {
 public:
  enum class Signal { kNone, kFaster, kHold, kRefused, kFailed, kSlowLatency };

  // `floor`: the configured delay for this host (>= 0). The first delay is
  // clamp(start, floor, max(floor, max_delay)).
  AdaptiveDelay(const AdaptiveDelayOptions& options, absl::Duration floor);

  // Feeds one fetch's outcome, ended at `now`; returns what it did. A slot
  // given back unfetched (status 0, no error) is kNone. A refusal or
  // failure of a request that started before the last slow-down is kNone.
  Signal OnAnswer(const AdaptiveDelayOptions& options, const FetchOutcome& outcome, absl::Time now);

  // The host's adaptive start interval now, in [floor, max(floor, max_delay)].
  absl::Duration Current() const { return delay_; }
  // The smallest recent latency (zero until the first answer).
  absl::Duration Baseline() const;
  absl::Duration SmoothedLatency() const { return smoothed_; }
  bool InSlowStart() const { return slow_start_; }

 private:
  // Sets the delay for rate `rate` (requests a second), within the bounds.
  void SetRate(const AdaptiveDelayOptions& options, double rate);
  void SlowDown(const AdaptiveDelayOptions& options, absl::Time now);
  void SpeedUp(const AdaptiveDelayOptions& options);
  void ObserveLatency(const AdaptiveDelayOptions& options, absl::Duration latency, absl::Time now);

  absl::Duration floor_;
  absl::Duration delay_;
  bool slow_start_ = true;
  double rate_at_slowdown_ = 0;  // requests a second when it last slowed down
  absl::Time last_slowdown_ = absl::InfinitePast();
  int answers_since_slowdown_ = 0;  // of requests started after it
  // Latency: the median of the last kRecentLatencies (microseconds, a ring),
  // and the minimum of this window and of the previous one.
  static constexpr size_t kRecentLatencies = 15;
  std::array<int32_t, kRecentLatencies> recent_us_{};
  uint64_t next_recent_ = 0;
  absl::Duration smoothed_ = absl::ZeroDuration();
  absl::Duration min_now_ = absl::InfiniteDuration();
  absl::Duration min_before_ = absl::InfiniteDuration();
  absl::Time window_start_ = absl::InfinitePast();
  // EWMA (weight 1/4) of the gap between answers, and the last answer's time.
  absl::Duration answer_gap_ = absl::ZeroDuration();
  absl::Time last_answer_ = absl::InfinitePast();
};

}  // namespace crawler

#endif  // CRAWLER_ADAPTIVE_DELAY_H_
