// PolitePolicy: the crawl's HostPolicy. It decides, per authority, how many
// fetches may run at once and how far apart they start, and reacts to what
// the host answers:
//   - --per-host and --delay, overridable per host pattern ([[hosts]] in the
//     config file; the first matching rule wins);
//   - robots.txt Crawl-delay, when larger than the configured delay (capped at
//     max_crawl_delay);
//   - 429/503 with Retry-After: the host pauses that long (capped at
//     max_retry_after, 1 h: a server asking for a day would otherwise hold the
//     crawl's end hostage); either is an answer, not a failure: it resets the
//     failure count and never drops the host;
//   - 5xx and connection failures (timeout, connect, reset, dns): exponential
//     back-off, backoff_base x 2^(n-1) after the n-th consecutive one (1 s, 2 s,
//     4 s ... capped at backoff_max); after drop_after of them in a row the host
//     cools down (its URLs stay queued): cooldown_base, then twice that ...,
//     one probe fetch after each; a probe that fails starts the next
//     cool-down, and after `cooldowns` of them the host is dropped for the
//     rest of the crawl (its URLs recorded "host_dropped"). A host down for a
//     minute loses nothing. Any other answer resets both
//     counts.
//     A failure that ends while a back-off is running was in flight when it
//     began (the host's other connections failing at once): it is part of
//     that failure, neither counted nor extending the wait.
//     429 without Retry-After backs off the same way but never drops a host
//     (it asks us to slow down, it does not say the host is broken).
//   - with `adaptive` (--adaptive-delay): each host's start interval moves
//     between its delay (the floor) and adaptive_options.max_delay, by the
//     host's answers (AdaptiveDelay, adaptive_delay.h): faster while they
//     are quick and successful, slower on 429/503, failures and rising
//     latency. Crawl-delay, Retry-After, back-offs and cool-downs still win
//     (the largest wait holds). A 429 without Retry-After then slows the
//     rate instead of pausing the host; the back-off pause starts at the
//     second 429 in a row (one sent after the slow-down).
//
//   crawler::PolitePolicyOptions options;
//   options.per_host = 1;
//   options.delay = absl::Milliseconds(200);
//   crawler::HostOverride rule;
//   rule.pattern = "*.example.org";
//   rule.per_host = 4;
//   options.rules.push_back(rule);
//   auto policy = crawler::PolitePolicy::Create(options);      // StatusOr
//   auto frontier = crawler::Frontier::Create(sieve, {}, std::move(*policy));
//
// Memory: a record per authority seen since the last HostQueues sweep (the
// sweep calls Forget; ~100 bytes each, ~200 with `adaptive`, bounded by the authorities with URLs
// buffered, in flight or pausing), plus one name and reason per dropped
// authority (~150 bytes), kept for the whole crawl so that its later URLs are
// not fetched, for at most kMaxDropped (100,000: ~15 MB) authorities; past
// that a failing host is not dropped (it keeps being backed off instead). A forgotten
// host also forgets its failure count: a host that failed four times, then
// idled with nothing queued past its pause, starts again from zero.
//
// Threading: every method is safe to call concurrently (one internal lock;
// the crawl-delay callback is called under it, so it must not call back).
#ifndef CRAWLER_POLITE_POLICY_H_
#define CRAWLER_POLITE_POLICY_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crawler/adaptive_delay.h"
#include "crawler/host_queues.h"

namespace crawler {

// One [[hosts]] rule. `pattern` is a glob ('*' = any run of characters,
// matched case-insensitively) against the host, or against "host:port" when
// the pattern has a ':' (the port is explicit or the scheme's default), or
// against the whole authority "scheme://host:port" when it has "://".
struct HostOverride {
  std::string pattern;
  std::optional<int> per_host;             // unset: PolitePolicyOptions::per_host
  std::optional<absl::Duration> delay;     // unset: PolitePolicyOptions::delay
  std::optional<int> per_ip;               // unset: PolitePolicyOptions::per_ip
  std::optional<absl::Duration> ip_delay;  // unset: PolitePolicyOptions::ip_delay
};

// True when `pattern` (as above) matches `authority` ("scheme://host[:port]").
bool HostPatternMatches(std::string_view pattern, std::string_view authority);

// How often the policy paused a host, since Create (for --metrics; not kept
// in checkpoints).
struct PoliteStats {
  uint64_t failure_backoffs = 0;  // a counted 5xx / connection failure's back-off
  uint64_t cooldowns = 0;         // drop_after failures in a row: a cool-down began
  uint64_t throttles = 0;         // a 429, with or without Retry-After
  uint64_t dropped = 0;           // hosts dropped (restored ones included)
  AdaptiveCounts adaptive;        // --adaptive-delay's slow-downs
};

struct PolitePolicyOptions {
  int per_host = 2;                         // --per-host; >= 1
  absl::Duration delay = absl::Seconds(1);  // --delay; >= 0
  std::vector<HostOverride> rules;          // first match wins
  // --per-ip and --ip-delay: fetches at once and time between starts on one
  // server (address and port) across all the names it serves, checked with
  // the limits of the authority starting (its rule's, else these). Unset:
  // per_ip = max(4, that authority's per_host) and ip_delay = its delay / 4,
  // so one server gets at most a few connections and at most four times
  // one host's request rate whatever number of names it serves, while a
  // single host (which needs at most per_host connections and one start per
  // delay) is never slowed by them. per_ip 0 = no limit.
  std::optional<int> per_ip;
  std::optional<absl::Duration> ip_delay;
  // Crawl-delay of an authority's robots.txt in seconds, nullopt when unknown
  // or absent (RobotsCache::CrawlDelay). Empty function: not asked. Known
  // values are cached per authority; unknown ones are asked again at every
  // start and at the end of every fetch (robots.txt arrives after the first
  // fetch was scheduled). A delay first learned at the end of a fetch spaces
  // the next start from that fetch's start (FetchOutcome::elapsed), so the
  // page after robots.txt keeps it too.
  std::function<std::optional<double>(const std::string& authority)> crawl_delay;
  // A Crawl-delay above this is taken as this: "Crawl-delay: 86400" would
  // otherwise take a day per page.
  absl::Duration max_crawl_delay = absl::Seconds(60);
  absl::Duration max_retry_after = absl::Hours(1);
  absl::Duration backoff_base = absl::Seconds(1);
  absl::Duration backoff_max = absl::Minutes(5);
  // Consecutive 5xx / connection failures that start a cool-down; 0 = never.
  int drop_after = 5;
  // Cool-downs (each ended by one probe fetch) before the host is dropped;
  // cool-down k lasts cooldown_base x 2^(k-1). 3 x from 1 min: a host failing
  // for 7 min (plus the back-offs before) is given up, one down for less
  // comes back with every URL. 0 = drop at once (the old behaviour).
  int cooldowns = 3;
  absl::Duration cooldown_base = absl::Minutes(1);
  // --adaptive-delay: the start interval adapts per host, never below the
  // host's delay above. Off by default: at the default 1 s delay it can only
  // slow a crawl down, and it reads the crawler's own stalls (a loaded
  // machine) as the hosts' latency rising.
  bool adaptive = false;
  AdaptiveDelayOptions adaptive_options;
};

class PolitePolicy : public HostPolicy {
 public:
  // Validates: per_host >= 1, per_ip >= 0, delays >= 0, each rule with a
  // pattern, per_host >= 1 and per_ip >= 0 when set, backoff_base > 0, drop_after >= 0.
  static absl::StatusOr<std::unique_ptr<PolitePolicy>> Create(PolitePolicyOptions options);

  int MaxConnections(const std::string& authority) override;
  absl::Duration StartInterval(const std::string& authority) override;
  absl::Time NextFetchTime(const std::string& authority, const FetchOutcome& outcome,
                           absl::Time now) override;
  // Why `authority` waits until `until` when a pause of ours holds it that
  // long ("Retry-After of a 503 (2s)", "back-off after failure 2 (connect)",
  // "cool-down 1 of 3 ..."); "" when only the start interval does.
  std::string PauseReason(const std::string& authority, absl::Time until) override;
  // The pointer stays valid for the policy's lifetime (dropped hosts are never
  // forgotten).
  const std::string* DropReason(const std::string& authority) override;
  void Forget(const std::string& authority) override;
  int AddressConnections(const std::string& authority) override;
  absl::Duration AddressInterval(const std::string& authority) override;

  // Dropped authorities and why ("5 consecutive failures, last: http 500").
  std::map<std::string, std::string> Dropped() const;
  // On --resume: the drops a checkpoint kept stay in force (before any URL
  // is handed out, so the host queues see them when they meet the host).
  void RestoreDropped(const std::map<std::string, std::string>& dropped);
  PoliteStats Stats() const;
  // Authorities with state held now (for tests of the memory bound).
  size_t TrackedHosts() const;
  // With `adaptive`: the `limit` tracked hosts with the longest adaptive
  // delay now, longest first (for --metrics); empty without.
  std::vector<std::pair<std::string, absl::Duration>> SlowestAdaptiveHosts(size_t limit) const;

 private:
  struct HostState {
    int rule = -1;  // index into options_.rules; -1 = none
    std::optional<absl::Duration> crawl_delay;
    int failures = 0;  // consecutive 5xx / connection failures
    // End of the back-off the last counted failure started. Failures that
    // end before it were in flight when it began (several connections to a
    // host fail together): they extend nothing and are not counted again.
    absl::Time backoff_until = absl::InfinitePast();
    int throttled = 0;      // consecutive 429s without Retry-After
    int cooldowns = 0;      // cool-downs since the last success
    bool answered = false;  // some response (any status) arrived since tracked
    // The last pause set (Retry-After, back-off, cool-down) and why: what the
    // crawl names when it waits for this host.
    absl::Time paused_until = absl::InfinitePast();
    std::string pause_reason;
    std::optional<AdaptiveDelay> adaptive;  // with options_.adaptive, from the first answer
  };

  explicit PolitePolicy(PolitePolicyOptions options) : options_(std::move(options)) {}
  HostState& StateLocked(const std::string& authority);  // requires mu_
  absl::Duration CrawlDelayLocked(const std::string& authority, HostState& state);
  absl::Duration Backoff(int consecutive) const;
  absl::Duration StartIntervalLocked(const std::string& authority, HostState& state);
  absl::Duration ConfiguredDelay(const HostState& state) const;
  // Feeds the adaptive controller (none without options_.adaptive).
  AdaptiveDelay::Signal AdaptLocked(HostState& state, const FetchOutcome& outcome, absl::Time now);
  // A 429 without Retry-After under --adaptive-delay: the first of a run
  // slowed the rate; later ones back off as without.
  absl::Time OnAdaptiveThrottleLocked(const std::string& authority, HostState& state,
                                      const FetchOutcome& outcome, AdaptiveDelay::Signal signal,
                                      absl::Time now);
  // The earliest next start after an answered fetch: a start interval after
  // its request went out (`now` when none was sent or there is no interval).
  absl::Time AfterRequestSent(const std::string& authority, HostState& state,
                              const FetchOutcome& outcome, absl::Time now);
  void PauseLocked(HostState& state, absl::Time until, std::string reason);
  absl::Time OnFailureLocked(const std::string& authority, HostState& state,
                             const FetchOutcome& outcome, absl::Time now);

  // The unset per_ip's floor and the unset ip_delay's divisor (see
  // PolitePolicyOptions::per_ip).
  static constexpr int kDefaultPerIp = 4;
  const PolitePolicyOptions options_;
  mutable std::mutex mu_;
  static constexpr size_t kMaxDropped = 100'000;
  absl::flat_hash_map<std::string, HostState> hosts_;  // guarded by mu_
  // Node-based so DropReason's pointers stay valid; guarded by mu_.
  std::map<std::string, std::string> dropped_;
  PoliteStats stats_;  // guarded by mu_ (dropped filled in by Stats)
};

// Whether an outcome counts towards back-off and dropping: a 5xx, or a
// transport failure that says the host is unreachable or broken (timeout,
// connect, reset, dns). TLS errors, oversized bodies and aborts do not.
bool IsHostFailure(const FetchOutcome& outcome);

}  // namespace crawler

#endif  // CRAWLER_POLITE_POLICY_H_
