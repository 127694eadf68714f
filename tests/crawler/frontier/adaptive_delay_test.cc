// AdaptiveDelay and PolitePolicy's --adaptive-delay: faster while answers
// are quick and successful, slower on 429/503, failures and rising latency,
// within [floor, max_delay], and never against Crawl-delay or Retry-After.
// The clock is the test's: every time is an argument, nothing sleeps.
#include "crawler/adaptive_delay.h"

#include <string>

#include "absl/time/time.h"
#include "crawler/polite_policy.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(4'000'000);
using Signal = AdaptiveDelay::Signal;

// One simulated host: requests start one delay apart, each answered
// `latency` after it was sent (1 ms after its start).
class Host {
 public:
  explicit Host(absl::Duration floor, AdaptiveDelayOptions options = {})
      : options_(options), delay_(options_, floor) {}

  // The next request starts one delay after the last and ends `latency`
  // after it went out, with `status` (or the transport `error_kind`).
  Signal Answer(absl::Duration latency, int status = 200, std::string error_kind = "") {
    start_ += std::max(delay_.Current(), absl::Milliseconds(1));
    return AnswerStartedAt(start_, latency, status, std::move(error_kind));
  }
  Signal AnswerStartedAt(absl::Time start, absl::Duration latency, int status,
                         std::string error_kind = "") {
    FetchOutcome outcome;
    outcome.status = status;
    outcome.error_kind = std::move(error_kind);
    outcome.failed = !outcome.error_kind.empty();
    outcome.sent_after = absl::Milliseconds(1);
    outcome.elapsed = outcome.sent_after + latency;
    now_ = std::max(now_, start + outcome.elapsed);
    return delay_.OnAnswer(options_, outcome, start + outcome.elapsed);
  }
  void AnswerMany(int n, absl::Duration latency) {
    for (int i = 0; i < n; ++i) Answer(latency);
  }
  absl::Duration delay() const { return delay_.Current(); }
  absl::Time last_start() const { return start_; }
  const AdaptiveDelay& controller() const { return delay_; }

 private:
  AdaptiveDelayOptions options_;
  AdaptiveDelay delay_;
  absl::Time start_ = kT0;
  absl::Time now_ = kT0;
};

TEST(AdaptiveDelay, StartsAtOneSecondOrTheFloorIfHigher) {
  EXPECT_EQ(Host(absl::ZeroDuration()).delay(), absl::Seconds(1));
  EXPECT_EQ(Host(absl::Seconds(2)).delay(), absl::Seconds(2));
  AdaptiveDelayOptions options;
  options.max_delay = absl::Seconds(5);
  EXPECT_EQ(Host(absl::Seconds(8), options).delay(), absl::Seconds(8));  // the floor wins the cap
}

TEST(AdaptiveDelay, SpeedsUpWhileAnswersAreFastAndSuccessfulDownToTheFloor) {
  Host host(absl::Milliseconds(10));
  absl::Duration previous = host.delay();
  for (int i = 0; i < 40; ++i) {
    EXPECT_EQ(host.Answer(absl::Milliseconds(20)), Signal::kFaster) << i;
    EXPECT_LE(host.delay(), previous) << i;
    previous = host.delay();
  }
  EXPECT_LT(host.delay(), absl::Milliseconds(100));
  EXPECT_TRUE(host.controller().InSlowStart());
  host.AnswerMany(200, absl::Milliseconds(20));
  EXPECT_EQ(host.delay(), absl::Milliseconds(10));  // the floor, never below
}

TEST(AdaptiveDelay, SlowStartDoublesTheRateEveryFourAnswers) {
  Host host(absl::ZeroDuration());
  host.AnswerMany(4, absl::Milliseconds(20));
  EXPECT_NEAR(absl::ToDoubleSeconds(host.delay()), 0.5, 0.01);
  // Then held to twice the rate the answers came at (they lag the delay).
  host.AnswerMany(4, absl::Milliseconds(20));
  EXPECT_LT(host.delay(), absl::Milliseconds(400));
  EXPECT_GE(host.delay(), absl::Milliseconds(249));
}

// 429 and 503 (the server asks for less), 5xx and transport failures: the
// rate x 0.7, i.e. the delay / 0.7.
TEST(AdaptiveDelay, SlowsDownOnRefusalsAndFailures) {
  struct Case {
    int status;
    const char* error_kind;
    Signal expected;
  };
  for (const Case& c : {Case{429, "", Signal::kRefused}, Case{503, "", Signal::kRefused},
                        Case{500, "", Signal::kFailed}, Case{0, "timeout", Signal::kFailed},
                        Case{0, "reset", Signal::kFailed}, Case{0, "connect", Signal::kFailed}}) {
    Host host(absl::Milliseconds(50));
    host.AnswerMany(300, absl::Milliseconds(20));  // steady at the floor: 20 req/s
    const absl::Duration before = host.delay();
    ASSERT_EQ(before, absl::Milliseconds(50));
    EXPECT_EQ(host.Answer(absl::Milliseconds(20), c.status, c.error_kind), c.expected)
        << c.status << " " << c.error_kind;
    EXPECT_NEAR(absl::ToDoubleSeconds(host.delay()), absl::ToDoubleSeconds(before) / 0.7,
                absl::ToDoubleSeconds(before) * 0.01)
        << c.status << " " << c.error_kind;
    EXPECT_FALSE(host.controller().InSlowStart());
  }
}

// Requests in flight when the host slowed down were sent at the old rate:
// their 429s are the same signal, not a new one.
TEST(AdaptiveDelay, OneSlowDownPerRoundTrip) {
  Host host(absl::ZeroDuration());
  host.AnswerMany(12, absl::Milliseconds(20));
  const absl::Time earlier_start = host.last_start();
  ASSERT_EQ(host.Answer(absl::Milliseconds(20), 429), Signal::kRefused);
  const absl::Duration after_one = host.delay();
  EXPECT_EQ(host.AnswerStartedAt(earlier_start, absl::Milliseconds(30), 429), Signal::kNone);
  EXPECT_EQ(host.delay(), after_one);
  // One sent after the slow-down and refused again: slower still.
  EXPECT_EQ(host.Answer(absl::Milliseconds(20), 429), Signal::kRefused);
  EXPECT_GT(host.delay(), after_one);
}

TEST(AdaptiveDelay, AfterASlowDownTheRateComesBackAdditively) {
  Host host(absl::ZeroDuration());
  host.AnswerMany(16, absl::Milliseconds(20));
  ASSERT_EQ(host.Answer(absl::Milliseconds(20), 429), Signal::kRefused);
  const double slowed_rate = 1 / absl::ToDoubleSeconds(host.delay());
  host.AnswerMany(100, absl::Milliseconds(20));
  const double rate = 1 / absl::ToDoubleSeconds(host.delay());
  // Half of the 30% lost comes back in 100 of the 200 answers.
  const double lost = slowed_rate / 0.7 - slowed_rate;
  EXPECT_NEAR(rate, slowed_rate + lost / 2, lost * 0.1);
}

TEST(AdaptiveDelay, SlowsDownWhenLatencyRisesWellAboveTheBaseline) {
  Host host(absl::ZeroDuration());
  host.AnswerMany(12, absl::Milliseconds(40));
  EXPECT_EQ(host.controller().Baseline(), absl::Milliseconds(40));
  const absl::Duration before = host.delay();
  // Latency 1.3x: the EWMA enters the hold band (1.25-1.5x): no more increase.
  Signal signal = Signal::kFaster;
  for (int i = 0; i < 40 && signal != Signal::kHold; ++i) {
    signal = host.Answer(absl::Milliseconds(52));
  }
  EXPECT_EQ(signal, Signal::kHold);
  const absl::Duration held = host.delay();
  for (int i = 0; i < 20; ++i) EXPECT_EQ(host.Answer(absl::Milliseconds(52)), Signal::kHold);
  EXPECT_EQ(host.delay(), held);
  EXPECT_LE(held, before);
  // 2x: above 1.5x once the EWMA catches up: slower.
  signal = Signal::kHold;
  for (int i = 0; i < 40 && signal != Signal::kSlowLatency; ++i) {
    signal = host.Answer(absl::Milliseconds(80));
  }
  EXPECT_EQ(signal, Signal::kSlowLatency);
  EXPECT_GT(host.delay(), held);
}

// A loopback host answering in 1 ms and then 3 ms has not tripled its
// latency: below 10 ms the baseline is taken as 10 ms.
TEST(AdaptiveDelay, LatencyBelowTheMinimumBaselineIsNotASignal) {
  Host host(absl::ZeroDuration());
  host.AnswerMany(12, absl::Milliseconds(1));
  for (int i = 0; i < 30; ++i) {
    EXPECT_EQ(host.Answer(absl::Milliseconds(3)), Signal::kFaster) << i;
  }
}

TEST(AdaptiveDelay, NeverAboveTheCap) {
  AdaptiveDelayOptions options;
  options.max_delay = absl::Seconds(4);
  Host host(absl::ZeroDuration(), options);
  for (int i = 0; i < 50; ++i) host.Answer(absl::Milliseconds(20), 503);
  EXPECT_EQ(host.delay(), absl::Seconds(4));
}

// Answers held to one a second by something else (--per-host and latency,
// a short queue): the delay does not race past twice that rate.
TEST(AdaptiveDelay, DoesNotBankARateTheHostNeverSaw) {
  AdaptiveDelayOptions options;
  AdaptiveDelay delay(options, absl::ZeroDuration());
  FetchOutcome fast;
  fast.status = 200;
  fast.elapsed = absl::Milliseconds(20);
  for (int i = 0; i < 200; ++i) delay.OnAnswer(options, fast, kT0 + absl::Seconds(i));
  EXPECT_GE(delay.Current(), absl::Milliseconds(499));
}

TEST(AdaptiveDelay, UnfetchedSlotsAndNonRateErrorsChangeNothing) {
  Host host(absl::ZeroDuration());
  host.AnswerMany(8, absl::Milliseconds(20));
  const absl::Duration before = host.delay();
  EXPECT_EQ(host.Answer(absl::Milliseconds(20), 0), Signal::kNone);  // robots said no
  EXPECT_EQ(host.Answer(absl::Milliseconds(20), 0, "tls"), Signal::kNone);
  EXPECT_EQ(host.delay(), before);
}

// --- PolitePolicy with adaptive on.

FetchOutcome Fetched(int status, absl::Duration latency = absl::Milliseconds(20)) {
  FetchOutcome outcome;
  outcome.status = status;
  outcome.sent_after = absl::Milliseconds(1);
  outcome.elapsed = outcome.sent_after + latency;
  return outcome;
}

std::unique_ptr<PolitePolicy> AdaptivePolicy(PolitePolicyOptions options) {
  options.adaptive = true;
  auto policy = PolitePolicy::Create(std::move(options));
  EXPECT_TRUE(policy.ok()) << policy.status();
  return policy.ok() ? std::move(*policy) : nullptr;
}

// Feeds `n` quick 200s, each starting one interval after the last.
absl::Time Succeed(PolitePolicy& policy, const std::string& host, int n, absl::Time now) {
  for (int i = 0; i < n; ++i) {
    now += policy.StartInterval(host) + absl::Milliseconds(21);
    policy.NextFetchTime(host, Fetched(200), now);
  }
  return now;
}

TEST(PolitePolicyAdaptive, OffByDefaultTheDelayIsFixed) {
  PolitePolicyOptions options;
  options.delay = absl::Milliseconds(200);
  auto policy = PolitePolicy::Create(options);
  ASSERT_TRUE(policy.ok());
  Succeed(**policy, "http://a", 50, kT0);
  EXPECT_EQ((*policy)->StartInterval("http://a"), absl::Milliseconds(200));
}

TEST(PolitePolicyAdaptive, DelayIsTheFloorAndHostRulesSetTheirOwn) {
  PolitePolicyOptions options;
  options.delay = absl::Milliseconds(50);
  HostOverride rule;
  rule.pattern = "slow.test";
  rule.delay = absl::Seconds(3);
  options.rules.push_back(rule);
  auto policy = AdaptivePolicy(options);
  EXPECT_EQ(policy->StartInterval("http://a"), absl::Seconds(1));  // the start
  EXPECT_EQ(policy->StartInterval("http://slow.test"), absl::Seconds(3));
  Succeed(*policy, "http://a", 300, kT0);
  Succeed(*policy, "http://slow.test", 300, kT0);
  EXPECT_EQ(policy->StartInterval("http://a"), absl::Milliseconds(50));
  EXPECT_EQ(policy->StartInterval("http://slow.test"), absl::Seconds(3));
  ASSERT_EQ(policy->SlowestAdaptiveHosts(1).size(), 1u);
  EXPECT_EQ(policy->SlowestAdaptiveHosts(1)[0].first, "http://slow.test");
}

TEST(PolitePolicyAdaptive, CrawlDelayStillWins) {
  PolitePolicyOptions options;
  options.delay = absl::ZeroDuration();
  options.crawl_delay = [](const std::string&) -> std::optional<double> { return 2.0; };
  auto policy = AdaptivePolicy(options);
  Succeed(*policy, "http://a", 100, kT0);
  EXPECT_EQ(policy->StartInterval("http://a"), absl::Seconds(2));
}

TEST(PolitePolicyAdaptive, RetryAfterStillPausesTheHost) {
  PolitePolicyOptions options;
  options.delay = absl::ZeroDuration();
  auto policy = AdaptivePolicy(options);
  absl::Time now = Succeed(*policy, "http://a", 20, kT0);
  const absl::Duration before = policy->StartInterval("http://a");
  FetchOutcome refused = Fetched(429);
  refused.retry_after = absl::Seconds(30);
  now += absl::Seconds(1);
  EXPECT_EQ(policy->NextFetchTime("http://a", refused, now), now + absl::Seconds(30));
  EXPECT_GT(policy->StartInterval("http://a"), before);  // and the rate is cut
  EXPECT_EQ(policy->Stats().adaptive.slowdowns_refused, 1u);
}

// The first 429 of a run is answered by the slower rate alone; a second one,
// sent at that rate, backs off as without --adaptive-delay.
TEST(PolitePolicyAdaptive, A429WithoutRetryAfterSlowsTheRateThenBacksOff) {
  PolitePolicyOptions options;
  options.delay = absl::ZeroDuration();
  options.backoff_base = absl::Seconds(1);
  auto policy = AdaptivePolicy(options);
  absl::Time now = Succeed(*policy, "http://a", 20, kT0);
  const absl::Duration before = policy->StartInterval("http://a");
  now += before + absl::Milliseconds(21);
  const absl::Time next = policy->NextFetchTime("http://a", Fetched(429), now);
  const absl::Duration slower = policy->StartInterval("http://a");
  EXPECT_GT(slower, before);
  EXPECT_LT(next, now + absl::Milliseconds(500));  // no 1 s pause
  now += slower + absl::Milliseconds(21);
  EXPECT_GE(policy->NextFetchTime("http://a", Fetched(429), now), now + absl::Seconds(1));
  EXPECT_EQ(policy->Stats().adaptive.slowdowns_refused, 2u);
}

TEST(PolitePolicyAdaptive, FailuresStillBackOffAndSlowTheRate) {
  PolitePolicyOptions options;
  options.delay = absl::ZeroDuration();
  auto policy = AdaptivePolicy(options);
  absl::Time now = Succeed(*policy, "http://a", 20, kT0);
  const absl::Duration before = policy->StartInterval("http://a");
  now += absl::Seconds(1);
  EXPECT_GE(policy->NextFetchTime("http://a", Fetched(500), now), now + absl::Seconds(1));
  EXPECT_GT(policy->StartInterval("http://a"), before);
  EXPECT_EQ(policy->Stats().adaptive.slowdowns_failed, 1u);
}

}  // namespace
}  // namespace crawler
