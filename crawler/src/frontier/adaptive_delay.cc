// AdaptiveDelay: AIMD on a host's request rate, with a latency signal.
// The rate is kept as the delay (what HostQueues spaces starts by); rates
// are computed from it when the controller moves.
#include "crawler/adaptive_delay.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>

namespace crawler {
namespace {

// 1000 requests a second: the fastest rate the controller names, so that a
// floor of 0 does not make the rate infinite.
constexpr double kMaxRate = 1000;
// Slow start multiplies the rate by this per fast answer: x2 every 4.
const double kSlowStartStep = std::pow(2.0, 0.25);
// A latency slow-down needs this many answers sent after the last one: the
// median of the last 15 must be one of them, i.e. have seen the new rate.
constexpr int kAnswersPerLatencyRound = 8;
// The gap between answers follows faster: in slow start the rate doubles
// every 4 answers, and the cap at twice the answers' rate must keep up.
constexpr int kGapWeight = 4;

bool Unfetched(const FetchOutcome& outcome) {
  return outcome.status == 0 && !outcome.failed && outcome.error_kind.empty();
}

// The server asks for less: 429 and 503, with or without Retry-After.
bool Refused(const FetchOutcome& outcome) { return outcome.status == 429 || outcome.status == 503; }

// A 5xx, or the host unreachable or broken (as PolitePolicy's IsHostFailure).
bool Failed(const FetchOutcome& outcome) {
  if (outcome.status >= 500) return true;
  const std::string& kind = outcome.error_kind;
  return kind == "timeout" || kind == "connect" || kind == "reset" || kind == "dns";
}

absl::Duration Ewma(absl::Duration average, absl::Duration sample, int weight) {
  if (average == absl::ZeroDuration()) return sample;
  return average + (sample - average) / weight;
}

}  // namespace

AdaptiveDelay::AdaptiveDelay(const AdaptiveDelayOptions& options, absl::Duration floor)
    : floor_(std::max(floor, absl::ZeroDuration())),
      delay_(std::clamp(options.start, floor_, std::max(floor_, options.max_delay))) {}

absl::Duration AdaptiveDelay::Baseline() const {
  const absl::Duration least = std::min(min_now_, min_before_);
  return least == absl::InfiniteDuration() ? absl::ZeroDuration() : least;
}

void AdaptiveDelay::SetRate(const AdaptiveDelayOptions& options, double rate) {
  const absl::Duration delay = absl::Seconds(1.0 / std::clamp(rate, 1e-6, kMaxRate));
  delay_ = std::clamp(delay, floor_, std::max(floor_, options.max_delay));
}

void AdaptiveDelay::SlowDown(const AdaptiveDelayOptions& options, absl::Time now) {
  // From the rate the host really saw: a delay the host never reached (held
  // by --per-host or by latency) would make the slow-down change nothing.
  double rate = delay_ > absl::ZeroDuration() ? 1.0 / absl::ToDoubleSeconds(delay_) : kMaxRate;
  if (answer_gap_ > absl::ZeroDuration()) {
    rate = std::min(rate, 1.0 / absl::ToDoubleSeconds(answer_gap_));
  }
  rate_at_slowdown_ = rate;
  SetRate(options, rate * options.backoff);
  slow_start_ = false;
  last_slowdown_ = now;
  answers_since_slowdown_ = 0;
}

void AdaptiveDelay::SpeedUp(const AdaptiveDelayOptions& options) {
  const double rate =
      delay_ > absl::ZeroDuration() ? 1.0 / absl::ToDoubleSeconds(delay_) : kMaxRate;
  double next = slow_start_ ? rate * kSlowStartStep
                            : rate + (1 - options.backoff) * rate_at_slowdown_ /
                                         std::max(1, options.recover_answers);
  // At most twice the rate the host's answers come at: a rate held lower by
  // --per-host, latency or an empty queue is not banked.
  if (answer_gap_ > absl::ZeroDuration()) {
    next = std::max(rate, std::min(next, 2.0 / absl::ToDoubleSeconds(answer_gap_)));
  }
  SetRate(options, next);
}

void AdaptiveDelay::ObserveLatency(const AdaptiveDelayOptions& options, absl::Duration latency,
                                   absl::Time now) {
  if (window_start_ == absl::InfinitePast()) window_start_ = now;
  if (now - window_start_ >= options.baseline_window) {
    // Two windows: the baseline forgets a latency older than 1-2 windows,
    // so a host that became slower for good is not slowed down forever.
    min_before_ = min_now_;
    min_now_ = absl::InfiniteDuration();
    window_start_ = now;
  }
  min_now_ = std::min(min_now_, latency);
  // The median, not a mean: a crawler on a busy machine sees some answers
  // late by tens of ms (its own threads waiting for a core); a mean moves
  // with those, the median of 15 only when most answers are slower.
  recent_us_[next_recent_ % recent_us_.size()] =
      static_cast<int32_t>(std::min<int64_t>(absl::ToInt64Microseconds(latency), INT32_MAX));
  ++next_recent_;
  const size_t count = std::min<size_t>(next_recent_, recent_us_.size());
  std::array<int32_t, kRecentLatencies> sorted = recent_us_;
  std::nth_element(sorted.begin(), sorted.begin() + count / 2, sorted.begin() + count);
  smoothed_ = absl::Microseconds(sorted[count / 2]);
}

AdaptiveDelay::Signal AdaptiveDelay::OnAnswer(const AdaptiveDelayOptions& options,
                                              const FetchOutcome& outcome, absl::Time now) {
  if (Unfetched(outcome)) return Signal::kNone;
  if (last_answer_ != absl::InfinitePast() && now > last_answer_) {
    answer_gap_ = Ewma(answer_gap_, now - last_answer_, kGapWeight);
  }
  last_answer_ = std::max(last_answer_, now);
  // Sent before the last slow-down: at the old rate, already acted on.
  const bool sent_before = now - outcome.elapsed < last_slowdown_;
  if (Refused(outcome) || Failed(outcome)) {
    if (sent_before) return Signal::kNone;
    SlowDown(options, now);
    return Refused(outcome) ? Signal::kRefused : Signal::kFailed;
  }
  if (outcome.status == 0) return Signal::kNone;  // a TLS error, a body too big: not the rate
  const absl::Duration latency =
      outcome.sent_after > absl::ZeroDuration()
          ? std::max(outcome.elapsed - outcome.sent_after, absl::ZeroDuration())
          : outcome.elapsed;
  ObserveLatency(options, latency, now);
  if (!sent_before) ++answers_since_slowdown_;
  const absl::Duration baseline = std::max(Baseline(), options.min_baseline);
  if (smoothed_ > baseline * options.slow_latency) {
    if (answers_since_slowdown_ < kAnswersPerLatencyRound) return Signal::kHold;
    SlowDown(options, now);
    return Signal::kSlowLatency;
  }
  if (smoothed_ >= baseline * options.warm_latency) return Signal::kHold;
  SpeedUp(options);
  return Signal::kFaster;
}

}  // namespace crawler
