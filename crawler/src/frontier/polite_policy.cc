// PolitePolicy: per-host rules, Crawl-delay, Retry-After, back-off and drops,
// all under one lock (the Frontier already serializes its calls; the lock is
// for Dropped() and tests reading from other threads).
#include "crawler/polite_policy.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace crawler {
namespace {

std::string DescribeFailure(const FetchOutcome& outcome) {
  if (!outcome.error_kind.empty()) return outcome.error_kind;
  return absl::StrCat("http ", outcome.status);
}

// Refused, or no such name: nothing listens there.
bool NoServerAnswered(const FetchOutcome& outcome) {
  return outcome.status == 0 && (outcome.error_kind == "connect" || outcome.error_kind == "dns");
}

}  // namespace

bool IsHostFailure(const FetchOutcome& outcome) {
  if (outcome.status >= 500) return true;
  const std::string& kind = outcome.error_kind;
  return kind == "timeout" || kind == "connect" || kind == "reset" || kind == "dns";
}

absl::StatusOr<std::unique_ptr<PolitePolicy>> PolitePolicy::Create(PolitePolicyOptions options) {
  if (options.per_host < 1) return absl::InvalidArgumentError("per_host must be >= 1");
  if (options.delay < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("delay must be >= 0");
  }
  for (const HostOverride& rule : options.rules) {
    if (rule.pattern.empty()) return absl::InvalidArgumentError("a hosts rule has no pattern");
    if (rule.per_host.has_value() && *rule.per_host < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("hosts rule '", rule.pattern, "': per_host must be >= 1"));
    }
    if (rule.delay.has_value() && *rule.delay < absl::ZeroDuration()) {
      return absl::InvalidArgumentError(
          absl::StrCat("hosts rule '", rule.pattern, "': delay must be >= 0"));
    }
    if ((rule.per_ip.has_value() && *rule.per_ip < 0) ||
        (rule.ip_delay.has_value() && *rule.ip_delay < absl::ZeroDuration())) {
      return absl::InvalidArgumentError(
          absl::StrCat("hosts rule '", rule.pattern, "': per_ip and ip_delay must be >= 0"));
    }
  }
  if ((options.per_ip.has_value() && *options.per_ip < 0) ||
      (options.ip_delay.has_value() && *options.ip_delay < absl::ZeroDuration())) {
    return absl::InvalidArgumentError("per_ip and ip_delay must be >= 0");
  }
  if (options.backoff_base <= absl::ZeroDuration() || options.backoff_max < options.backoff_base) {
    return absl::InvalidArgumentError("backoff_base must be > 0 and <= backoff_max");
  }
  if (options.drop_after < 0) return absl::InvalidArgumentError("drop_after must be >= 0");
  if (options.cooldowns < 0) return absl::InvalidArgumentError("cooldowns must be >= 0");
  return std::unique_ptr<PolitePolicy>(new PolitePolicy(std::move(options)));
}

PolitePolicy::HostState& PolitePolicy::StateLocked(const std::string& authority) {
  auto [it, inserted] = hosts_.try_emplace(authority);
  if (inserted) {
    for (size_t i = 0; i < options_.rules.size(); ++i) {
      if (HostPatternMatches(options_.rules[i].pattern, authority)) {
        it->second.rule = static_cast<int>(i);
        break;
      }
    }
  }
  return it->second;
}

int PolitePolicy::MaxConnections(const std::string& authority) {
  std::lock_guard<std::mutex> lock(mu_);
  const HostState& state = StateLocked(authority);
  if (state.rule >= 0 && options_.rules[state.rule].per_host.has_value()) {
    return *options_.rules[state.rule].per_host;
  }
  return options_.per_host;
}

absl::Duration PolitePolicy::CrawlDelayLocked(const std::string& authority, HostState& state) {
  if (!options_.crawl_delay || state.crawl_delay.has_value()) {
    return state.crawl_delay.value_or(absl::ZeroDuration());
  }
  // Asked on every start until known: the URLs parked while
  // robots.txt is fetched all start right after it arrives, so skipping asks
  // let a host's first pages go out unspaced. The ask is one cache lookup,
  // small next to a fetch.
  const std::optional<double> seconds = options_.crawl_delay(authority);
  if (!seconds.has_value()) return absl::ZeroDuration();
  state.crawl_delay =
      std::clamp(absl::Seconds(*seconds), absl::ZeroDuration(), options_.max_crawl_delay);
  return *state.crawl_delay;
}

absl::Duration PolitePolicy::StartInterval(const std::string& authority) {
  std::lock_guard<std::mutex> lock(mu_);
  return StartIntervalLocked(authority, StateLocked(authority));
}

absl::Duration PolitePolicy::ConfiguredDelay(const HostState& state) const {
  if (state.rule >= 0 && options_.rules[state.rule].delay.has_value()) {
    return *options_.rules[state.rule].delay;
  }
  return options_.delay;
}

absl::Duration PolitePolicy::StartIntervalLocked(const std::string& authority, HostState& state) {
  absl::Duration delay = ConfiguredDelay(state);
  if (options_.adaptive) {
    // Before its first answer a host starts at the controller's start delay.
    delay = state.adaptive.has_value()
                ? state.adaptive->Current()
                : std::clamp(options_.adaptive_options.start, delay,
                             std::max(delay, options_.adaptive_options.max_delay));
  }
  return std::max(delay, CrawlDelayLocked(authority, state));
}

AdaptiveDelay::Signal PolitePolicy::AdaptLocked(HostState& state, const FetchOutcome& outcome,
                                                absl::Time now) {
  if (!options_.adaptive) return AdaptiveDelay::Signal::kNone;
  if (!state.adaptive.has_value()) {
    state.adaptive.emplace(options_.adaptive_options, ConfiguredDelay(state));
  }
  const AdaptiveDelay::Signal signal =
      state.adaptive->OnAnswer(options_.adaptive_options, outcome, now);
  if (signal == AdaptiveDelay::Signal::kRefused) ++stats_.adaptive.slowdowns_refused;
  if (signal == AdaptiveDelay::Signal::kFailed) ++stats_.adaptive.slowdowns_failed;
  if (signal == AdaptiveDelay::Signal::kSlowLatency) ++stats_.adaptive.slowdowns_latency;
  return signal;
}

absl::Duration PolitePolicy::Backoff(int consecutive) const {
  absl::Duration wait = options_.backoff_base;
  for (int i = 1; i < consecutive && wait < options_.backoff_max; ++i) wait *= 2;
  return std::min(wait, options_.backoff_max);
}

void PolitePolicy::PauseLocked(HostState& state, absl::Time until, std::string reason) {
  state.paused_until = until;
  state.pause_reason = std::move(reason);
}

absl::Time PolitePolicy::OnFailureLocked(const std::string& authority, HostState& state,
                                         const FetchOutcome& outcome, absl::Time now) {
  if (!state.answered && NoServerAnswered(outcome) && options_.drop_after > 0 &&
      dropped_.size() < kMaxDropped) {
    // Nothing ever answered there and the connection is refused (or the name
    // does not resolve): its other URLs would fail the same way, and cooling
    // down for 1 + 2 + 4 min holds the crawl's end for nothing. The robots
    // gate gives such a host up the same way.
    ++state.failures;
    dropped_.try_emplace(authority,
                         absl::StrCat("no server: ", outcome.error_kind, ", nothing answered"));
    return now;
  }
  if (now < state.backoff_until) return state.backoff_until;
  ++state.failures;
  if (options_.drop_after > 0 && state.failures >= options_.drop_after &&
      state.cooldowns < options_.cooldowns) {
    // Cool down, then probe: one more failure (the probe's) starts the next.
    ++state.cooldowns;
    ++stats_.cooldowns;
    state.failures = options_.drop_after - 1;
    absl::Duration wait = options_.cooldown_base;
    for (int k = 1; k < state.cooldowns; ++k) wait *= 2;
    state.backoff_until = now + wait;
    PauseLocked(
        state, state.backoff_until,
        absl::StrCat("cool-down ", state.cooldowns, " of ", options_.cooldowns, " after ",
                     options_.drop_after, " failures (last: ", DescribeFailure(outcome), ")"));
    return state.backoff_until;
  }
  if (options_.drop_after > 0 && state.failures >= options_.drop_after &&
      dropped_.size() < kMaxDropped) {
    dropped_.try_emplace(
        authority,
        absl::StrCat(state.failures, " consecutive failures",
                     state.cooldowns > 0 ? absl::StrCat(" after ", state.cooldowns, " cool-downs")
                                         : std::string(),
                     ", last: ", DescribeFailure(outcome)));
  }
  ++stats_.failure_backoffs;
  state.backoff_until = now + Backoff(state.failures);
  PauseLocked(
      state, state.backoff_until,
      absl::StrCat("back-off after failure ", state.failures, " (", DescribeFailure(outcome), ")"));
  return state.backoff_until;
}

absl::Time PolitePolicy::NextFetchTime(const std::string& authority, const FetchOutcome& outcome,
                                       absl::Time now) {
  // A slot given back unfetched (robots said no, or the URL waits for
  // robots.txt) says nothing about the host: its failure and 429 counts stay.
  if (outcome.status == 0 && !outcome.failed && outcome.error_kind.empty()) return now;
  std::lock_guard<std::mutex> lock(mu_);
  HostState& state = StateLocked(authority);
  if (outcome.status != 0) state.answered = true;
  const AdaptiveDelay::Signal signal = AdaptLocked(state, outcome, now);
  // A 503 with Retry-After is the server asking for a pause, as a 429 is: it
  // is honoured and not counted toward dropping the host (counted, ten of
  // them began a one-minute cool-down).
  const bool asks_pause =
      (outcome.status == 429 || outcome.status == 503) && outcome.retry_after.has_value();
  if (IsHostFailure(outcome) && !asks_pause) return OnFailureLocked(authority, state, outcome, now);
  state.failures = 0;
  state.cooldowns = 0;
  if (outcome.status == 429 || asks_pause) {
    ++stats_.throttles;
    if (asks_pause) {
      state.throttled = 0;
      // Transfers in flight when the pause began end inside it: the pause
      // stays where the first answer put it unless a later one asks longer.
      const absl::Time until = now + std::min(*outcome.retry_after, options_.max_retry_after);
      if (until > state.paused_until || state.pause_reason.empty()) {
        PauseLocked(state, until,
                    absl::StrCat("Retry-After of a ", outcome.status, " (",
                                 absl::FormatDuration(*outcome.retry_after), ")"));
      }
      return until;
    }
    if (options_.adaptive) return OnAdaptiveThrottleLocked(authority, state, outcome, signal, now);
    const absl::Time until = now + Backoff(++state.throttled);
    PauseLocked(state, until, absl::StrCat("back-off after 429 number ", state.throttled));
    return until;
  }
  state.throttled = 0;
  return std::max(now, AfterRequestSent(authority, state, outcome, now));
}

absl::Time PolitePolicy::OnAdaptiveThrottleLocked(const std::string& authority, HostState& state,
                                                  const FetchOutcome& outcome,
                                                  AdaptiveDelay::Signal signal, absl::Time now) {
  // A 429 to a request sent before the slow-down was sent at the old rate:
  // the slow-down already answers it. The first 429 of a run is answered by
  // the slower rate alone (a fixed 1 s pause at every limit hit would cost a
  // fast host more than the limit asks); one sent at the slower rate and
  // refused again backs off as without --adaptive-delay.
  if (signal == AdaptiveDelay::Signal::kRefused && ++state.throttled >= 2) {
    const absl::Time until = now + Backoff(state.throttled - 1);
    PauseLocked(state, until, absl::StrCat("back-off after 429 number ", state.throttled));
    return until;
  }
  return std::max(now, AfterRequestSent(authority, state, outcome, now));
}

absl::Time PolitePolicy::AfterRequestSent(const std::string& authority, HostState& state,
                                          const FetchOutcome& outcome, absl::Time now) {
  // The interval between starts (HostQueues spaces those) holds at the
  // crawler; a fetch whose connect or TLS took long reaches the server that
  // much later, closer to the next. Counting again from the request's
  // sending keeps the gap at the server. It also applies a Crawl-delay
  // first known at this fetch's end (robots.txt's own), which the start of
  // this fetch could not know.
  if (outcome.sent_after <= absl::ZeroDuration()) return now;
  const absl::Duration interval = StartIntervalLocked(authority, state);
  if (interval <= absl::ZeroDuration()) return now;
  return now - outcome.elapsed + outcome.sent_after + interval;
}

int PolitePolicy::AddressConnections(const std::string& authority) {
  std::lock_guard<std::mutex> lock(mu_);
  const HostState& state = StateLocked(authority);
  const HostOverride* rule = state.rule >= 0 ? &options_.rules[state.rule] : nullptr;
  if (rule != nullptr && rule->per_ip.has_value()) return *rule->per_ip;
  if (options_.per_ip.has_value()) return *options_.per_ip;
  const int per_host =
      rule != nullptr && rule->per_host.has_value() ? *rule->per_host : options_.per_host;
  return std::max(kDefaultPerIp, per_host);
}

absl::Duration PolitePolicy::AddressInterval(const std::string& authority) {
  std::lock_guard<std::mutex> lock(mu_);
  const HostState& state = StateLocked(authority);
  const HostOverride* rule = state.rule >= 0 ? &options_.rules[state.rule] : nullptr;
  if (rule != nullptr && rule->ip_delay.has_value()) return *rule->ip_delay;
  if (options_.ip_delay.has_value()) return *options_.ip_delay;
  const absl::Duration delay =
      rule != nullptr && rule->delay.has_value() ? *rule->delay : options_.delay;
  return delay / kDefaultPerIp;
}

std::string PolitePolicy::PauseReason(const std::string& authority, absl::Time until) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = hosts_.find(authority);
  if (it == hosts_.end() || it->second.pause_reason.empty()) return "";
  if (it->second.paused_until < until) return "";  // the pause ended: the delay holds it
  return it->second.pause_reason;
}

const std::string* PolitePolicy::DropReason(const std::string& authority) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = dropped_.find(authority);
  return it == dropped_.end() ? nullptr : &it->second;
}

void PolitePolicy::Forget(const std::string& authority) {
  std::lock_guard<std::mutex> lock(mu_);
  hosts_.erase(authority);
}

void PolitePolicy::RestoreDropped(const std::map<std::string, std::string>& dropped) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [authority, reason] : dropped) dropped_.try_emplace(authority, reason);
}

std::map<std::string, std::string> PolitePolicy::Dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

PoliteStats PolitePolicy::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  PoliteStats stats = stats_;
  stats.dropped = dropped_.size();
  return stats;
}

std::vector<std::pair<std::string, absl::Duration>> PolitePolicy::SlowestAdaptiveHosts(
    size_t limit) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<std::string, absl::Duration>> delays;
  for (const auto& [authority, state] : hosts_) {
    if (state.adaptive.has_value()) delays.emplace_back(authority, state.adaptive->Current());
  }
  const auto longer = [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  };
  const size_t kept = std::min(limit, delays.size());
  std::partial_sort(delays.begin(), delays.begin() + static_cast<std::ptrdiff_t>(kept),
                    delays.end(), longer);
  delays.resize(kept);
  return delays;
}

size_t PolitePolicy::TrackedHosts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hosts_.size();
}

}  // namespace crawler
