// PolitePolicy: [[hosts]] patterns, Crawl-delay, Retry-After, the back-off
// sequence, dropping a failing host, and the bound on per-host state. The
// numbers (1 s x 2^n, 5 failures, 1 h cap) are our documented choices.
#include "crawler/polite_policy.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "crawler/frontier.h"
#include "gtest/gtest.h"
#include "sieve/sieve.h"

namespace crawler {
namespace {

const absl::Time kPolicyT0 = absl::FromUnixSeconds(3'000'000);

std::unique_ptr<PolitePolicy> Make(PolitePolicyOptions options) {
  auto policy = PolitePolicy::Create(std::move(options));
  EXPECT_TRUE(policy.ok()) << policy.status();
  return policy.ok() ? std::move(*policy) : nullptr;
}

HostOverride Rule(std::string pattern, std::optional<int> per_host,
                  std::optional<absl::Duration> delay) {
  HostOverride rule;
  rule.pattern = std::move(pattern);
  rule.per_host = per_host;
  rule.delay = delay;
  return rule;
}

FetchOutcome Answer(int status, std::string error_kind = "") {
  FetchOutcome outcome;
  outcome.status = status;
  outcome.error_kind = std::move(error_kind);
  outcome.failed = !outcome.error_kind.empty();
  return outcome;
}

TEST(HostPatternMatches, GlobOnHostHostPortOrAuthority) {
  EXPECT_TRUE(HostPatternMatches("*.example.org", "https://www.example.org"));
  EXPECT_TRUE(HostPatternMatches("*.example.org", "http://a.b.example.org:8080"));
  EXPECT_FALSE(HostPatternMatches("*.example.org", "http://example.org"));
  EXPECT_TRUE(HostPatternMatches("EXAMPLE.org", "http://example.ORG"));
  EXPECT_TRUE(HostPatternMatches("127.0.0.1:8080", "http://127.0.0.1:8080"));
  EXPECT_FALSE(HostPatternMatches("127.0.0.1:8080", "http://127.0.0.1:8081"));
  EXPECT_TRUE(HostPatternMatches("a.com:443", "https://a.com"));  // the scheme's default port
  EXPECT_TRUE(HostPatternMatches("a.com:80", "http://a.com"));
  EXPECT_TRUE(HostPatternMatches("[::1]:*", "http://[::1]:9000"));
  EXPECT_TRUE(HostPatternMatches("[::1]", "http://[::1]:9000"));
  EXPECT_TRUE(HostPatternMatches("https://*", "https://a.com"));
  EXPECT_FALSE(HostPatternMatches("https://*", "http://a.com"));
  EXPECT_TRUE(HostPatternMatches("*", "http://anything"));
  EXPECT_FALSE(HostPatternMatches("a*c", "http://abd"));
}

TEST(PolitePolicy, RejectsBadOptions) {
  PolitePolicyOptions options;
  options.per_host = 0;
  EXPECT_FALSE(PolitePolicy::Create(options).ok());
  options = {};
  options.rules.push_back(Rule("", std::nullopt, std::nullopt));
  EXPECT_FALSE(PolitePolicy::Create(options).ok());
  options = {};
  options.rules.push_back(Rule("a", 0, std::nullopt));
  EXPECT_FALSE(PolitePolicy::Create(options).ok());
  options = {};
  options.rules.push_back(Rule("a", std::nullopt, absl::Seconds(-1)));
  EXPECT_FALSE(PolitePolicy::Create(options).ok());
}

// On --resume the checkpoint's drop decisions stay in force: the host queues
// ask DropReason when they first meet the host again.
TEST(PolitePolicy, RestoredDropsStayInForce) {
  auto policy = Make({});
  EXPECT_EQ(policy->DropReason("http://down.test"), nullptr);
  policy->RestoreDropped({{"http://down.test", "5 consecutive failures, last: http 500"}});
  const std::string* reason = policy->DropReason("http://down.test");
  ASSERT_NE(reason, nullptr);
  EXPECT_EQ(*reason, "5 consecutive failures, last: http 500");
  EXPECT_EQ(policy->DropReason("http://up.test"), nullptr);
  EXPECT_EQ(policy->Dropped().size(), 1u);
}

TEST(PolitePolicy, PerHostAndDelayOverridablePerPatternFirstMatchWins) {
  PolitePolicyOptions options;
  options.per_host = 2;
  options.delay = absl::Seconds(1);
  options.rules.push_back(Rule("fast.example.org", std::nullopt, absl::ZeroDuration()));
  options.rules.push_back(Rule("*.example.org", 4, absl::Milliseconds(250)));
  auto policy = Make(options);
  EXPECT_EQ(policy->MaxConnections("http://other.net"), 2);
  EXPECT_EQ(policy->StartInterval("http://other.net"), absl::Seconds(1));
  EXPECT_EQ(policy->MaxConnections("http://www.example.org"), 4);
  EXPECT_EQ(policy->StartInterval("http://www.example.org"), absl::Milliseconds(250));
  // The first rule matches and leaves per_host unset: the global value.
  EXPECT_EQ(policy->MaxConnections("http://fast.example.org"), 2);
  EXPECT_EQ(policy->StartInterval("http://fast.example.org"), absl::ZeroDuration());
}

TEST(PolitePolicy, CrawlDelayHonoredOnlyWhenLarger) {
  int asks = 0;
  PolitePolicyOptions options;
  options.delay = absl::Seconds(1);
  options.crawl_delay = [&asks](const std::string& authority) -> std::optional<double> {
    ++asks;
    if (authority == "http://slow") return 5.0;
    if (authority == "http://quick") return 0.5;
    if (authority == "http://huge") return 86400.0;
    return std::nullopt;
  };
  auto policy = Make(options);
  EXPECT_EQ(policy->StartInterval("http://slow"), absl::Seconds(5));
  EXPECT_EQ(policy->StartInterval("http://quick"), absl::Seconds(1));
  EXPECT_EQ(policy->StartInterval("http://huge"), absl::Seconds(60));  // max_crawl_delay
  const int after_first = asks;
  for (int i = 0; i < 10; ++i) policy->StartInterval("http://slow");
  EXPECT_EQ(asks, after_first);  // a known value is cached, not asked again
}

// The delay holds from the first start after robots.txt arrived
// (it used to be asked only every 16th start, so a host's first pages went
// out unspaced).
TEST(PolitePolicy, UnknownCrawlDelayIsAskedOnEveryStart) {
  bool known = false;
  int asks = 0;
  PolitePolicyOptions options;
  options.delay = absl::ZeroDuration();
  options.crawl_delay = [&](const std::string&) -> std::optional<double> {
    ++asks;
    return known ? std::optional<double>(2.0) : std::nullopt;
  };
  auto policy = Make(options);
  EXPECT_EQ(policy->StartInterval("http://a"), absl::ZeroDuration());
  EXPECT_EQ(policy->StartInterval("http://a"), absl::ZeroDuration());
  known = true;  // robots.txt arrived
  EXPECT_EQ(policy->StartInterval("http://a"), absl::Seconds(2));
  EXPECT_EQ(policy->StartInterval("http://a"), absl::Seconds(2));
  EXPECT_EQ(asks, 3);  // a known delay is cached
}

// robots.txt's own fetch ends with the delay known; the next start
// is a delay after that fetch's request went out, not at once.
TEST(PolitePolicy, DelayLearnedAtAFetchEndSpacesTheNextStart) {
  bool known = false;
  PolitePolicyOptions options;
  options.delay = absl::ZeroDuration();
  options.crawl_delay = [&](const std::string&) -> std::optional<double> {
    return known ? std::optional<double>(2.0) : std::nullopt;
  };
  auto policy = Make(options);
  EXPECT_EQ(policy->StartInterval("http://a"), absl::ZeroDuration());
  known = true;
  FetchOutcome robots = Answer(200);
  robots.elapsed = absl::Milliseconds(500);
  robots.sent_after = absl::Milliseconds(100);  // sent at T0 - 400 ms
  EXPECT_EQ(policy->NextFetchTime("http://a", robots, kPolicyT0),
            kPolicyT0 + absl::Milliseconds(1600));
}

// A fetch whose set-up (connect, TLS) took long reached the server
// late; the next start is spaced from its request, so the gap holds at the
// server. No request sent (refused, given back): no spacing from it.
TEST(PolitePolicy, TheNextStartIsSpacedFromTheRequestSent) {
  PolitePolicyOptions options;
  options.delay = absl::Milliseconds(300);
  auto policy = Make(options);
  FetchOutcome slow_connect = Answer(200);
  slow_connect.elapsed = absl::Milliseconds(400);
  slow_connect.sent_after = absl::Milliseconds(250);  // sent at T0 - 150 ms
  EXPECT_EQ(policy->NextFetchTime("http://a", slow_connect, kPolicyT0),
            kPolicyT0 + absl::Milliseconds(150));
  FetchOutcome quick = Answer(200);
  quick.elapsed = absl::Milliseconds(400);
  quick.sent_after = absl::Milliseconds(1);  // sent 399 ms ago: the gap is over
  EXPECT_EQ(policy->NextFetchTime("http://a", quick, kPolicyT0), kPolicyT0);
  EXPECT_EQ(policy->NextFetchTime("http://a", FetchOutcome{}, kPolicyT0), kPolicyT0);
}

TEST(PolitePolicy, RetryAfterPausesTheHostCapped) {
  auto policy = Make({});
  FetchOutcome throttled = Answer(429);
  throttled.retry_after = absl::Seconds(30);
  EXPECT_EQ(policy->NextFetchTime("http://a", throttled, kPolicyT0), kPolicyT0 + absl::Seconds(30));
  FetchOutcome busy = Answer(503);
  busy.retry_after = absl::Hours(48);
  EXPECT_EQ(policy->NextFetchTime("http://b", busy, kPolicyT0), kPolicyT0 + absl::Hours(1));
  EXPECT_EQ(policy->NextFetchTime("http://a", Answer(200), kPolicyT0), kPolicyT0);
}

TEST(PolitePolicy, BackOffDoublesFromOneSecondUpToTheCap) {
  PolitePolicyOptions options;
  options.drop_after = 0;  // never drop: watch the sequence
  options.backoff_max = absl::Seconds(10);
  auto policy = Make(options);
  std::vector<absl::Duration> waits;
  absl::Time now = kPolicyT0;
  for (int i = 0; i < 6; ++i) {  // each attempt right after the previous back-off
    const absl::Time next = policy->NextFetchTime("http://a", Answer(500), now);
    waits.push_back(next - now);
    now = next;
  }
  const std::vector<absl::Duration> expected = {absl::Seconds(1),  absl::Seconds(2),
                                                absl::Seconds(4),  absl::Seconds(8),
                                                absl::Seconds(10), absl::Seconds(10)};
  EXPECT_EQ(waits, expected);
  // A success resets the count: the next failure waits 1 s again.
  EXPECT_EQ(policy->NextFetchTime("http://a", Answer(200), now), now);
  EXPECT_EQ(policy->NextFetchTime("http://a", Answer(0, "timeout"), now), now + absl::Seconds(1));
}

TEST(PolitePolicy, FailuresInFlightDuringABackOffAreOneFailure) {
  auto policy = Make({});  // drops after 5
  const absl::Time until = policy->NextFetchTime("http://a", Answer(503), kPolicyT0);
  EXPECT_EQ(until, kPolicyT0 + absl::Seconds(1));
  // Four more transfers started before the first failure end during its back-off.
  for (int i = 1; i <= 4; ++i) {
    EXPECT_EQ(
        policy->NextFetchTime("http://a", Answer(0, "reset"), kPolicyT0 + absl::Milliseconds(i)),
        until);
  }
  EXPECT_EQ(policy->DropReason("http://a"), nullptr);
  // The next attempt, after the back-off, is the second failure: 2 s.
  EXPECT_EQ(policy->NextFetchTime("http://a", Answer(500), until), until + absl::Seconds(2));
}

TEST(PolitePolicy, ASlotGivenBackUnfetchedLeavesTheBackOffAsItWas) {
  PolitePolicyOptions options;
  options.drop_after = 0;
  auto policy = Make(options);
  absl::Time now = policy->NextFetchTime("http://a", Answer(500), kPolicyT0);  // 1 s
  now = policy->NextFetchTime("http://a", Answer(500), now);                   // 2 s
  // A URL blocked by robots.txt, or parked for it, gives its slot back
  // without a fetch: no wait, and the host's failure count is not reset.
  EXPECT_EQ(policy->NextFetchTime("http://a", FetchOutcome{}, now), now);
  EXPECT_EQ(policy->NextFetchTime("http://a", Answer(500), now), now + absl::Seconds(4));
}

TEST(PolitePolicy, OnlyServerAndConnectionFailuresCount) {
  auto policy = Make({});
  EXPECT_EQ(policy->NextFetchTime("http://a", Answer(404), kPolicyT0), kPolicyT0);
  EXPECT_EQ(policy->NextFetchTime("http://a", Answer(200, "body_too_large"), kPolicyT0), kPolicyT0);
  EXPECT_EQ(policy->NextFetchTime("http://a", Answer(0, "tls"), kPolicyT0), kPolicyT0);
  for (const char* kind : {"timeout", "connect", "reset", "dns"}) {
    EXPECT_TRUE(IsHostFailure(Answer(0, kind))) << kind;
  }
  EXPECT_TRUE(IsHostFailure(Answer(502)));
  EXPECT_FALSE(IsHostFailure(Answer(429)));
}

TEST(PolitePolicy, DroppedAfterFiveConsecutiveFailuresWithReason) {
  PolitePolicyOptions options;
  options.cooldowns = 0;  // drop at once
  auto policy = Make(options);
  absl::Time now = kPolicyT0;
  for (int i = 0; i < 4; ++i) {
    now = policy->NextFetchTime("http://bad", Answer(500), now);
    EXPECT_EQ(policy->DropReason("http://bad"), nullptr) << i;
  }
  policy->NextFetchTime("http://bad", Answer(0, "connect"), now);
  const std::string* reason = policy->DropReason("http://bad");
  ASSERT_NE(reason, nullptr);
  EXPECT_EQ(*reason, "5 consecutive failures, last: connect");
  EXPECT_EQ(policy->Dropped().size(), 1u);
  policy->Forget("http://bad");  // a dropped host stays dropped
  EXPECT_NE(policy->DropReason("http://bad"), nullptr);
}

// A host down for a while cools down (1, 2, 4 min), one
// probe after each; only a probe failing after the last one drops it, and a
// success at any point gives it back its whole crawl.
TEST(PolitePolicy, FailingHostCoolsDownBeforeItIsDropped) {
  auto policy = Make({});
  absl::Time now = kPolicyT0;
  for (int i = 0; i < 4; ++i) now = policy->NextFetchTime("http://bad", Answer(500), now);
  for (int k = 0; k < 3; ++k) {
    const absl::Time until = policy->NextFetchTime("http://bad", Answer(0, "connect"), now);
    EXPECT_EQ(until - now, absl::Minutes(1) * (1 << k)) << k;
    EXPECT_EQ(policy->DropReason("http://bad"), nullptr) << k;
    now = until;
  }
  policy->NextFetchTime("http://bad", Answer(503), now);
  const std::string* reason = policy->DropReason("http://bad");
  ASSERT_NE(reason, nullptr);
  EXPECT_EQ(*reason, "5 consecutive failures after 3 cool-downs, last: http 503");

  // A host that answers after its first cool-down starts from zero.
  now = kPolicyT0;
  for (int i = 0; i < 5; ++i) now = policy->NextFetchTime("http://flaky", Answer(500), now);
  EXPECT_EQ(policy->NextFetchTime("http://flaky", Answer(200), now), now);
  for (int i = 0; i < 5; ++i) now = policy->NextFetchTime("http://flaky", Answer(500), now);
  EXPECT_EQ(policy->DropReason("http://flaky"), nullptr);
}

// A 503 with Retry-After asks for a pause, as a 429
// does; ten of them in a row are not ten failures (they began a cool-down).
TEST(PolitePolicy, A503WithRetryAfterIsAPauseNotAFailure) {
  auto policy = Make({});
  absl::Time now = kPolicyT0;
  for (int i = 0; i < 10; ++i) {
    FetchOutcome busy = Answer(503);
    busy.retry_after = absl::Seconds(2);
    const absl::Time until = policy->NextFetchTime("http://a", busy, now);
    EXPECT_EQ(until, now + absl::Seconds(2)) << i;
    EXPECT_EQ(policy->PauseReason("http://a", until), "Retry-After of a 503 (2s)") << i;
    now = until;
  }
  EXPECT_EQ(policy->DropReason("http://a"), nullptr);
  EXPECT_EQ(policy->Stats().cooldowns, 0u);
  EXPECT_EQ(policy->Stats().failure_backoffs, 0u);
  // Without Retry-After a 503 is still a failure, named while it holds.
  const absl::Time until = policy->NextFetchTime("http://a", Answer(503), now);
  EXPECT_EQ(until, now + absl::Seconds(1));
  EXPECT_EQ(policy->PauseReason("http://a", until), "back-off after failure 1 (http 503)");
  EXPECT_EQ(policy->PauseReason("http://a", until + absl::Seconds(1)), "");  // over by then
}

// A host that never answered and refuses connections (or
// has no address) is dropped at its first such failure; one that answered
// before gets the back-offs and cool-downs of a host that is down a while.
TEST(PolitePolicy, AHostThatNeverAnsweredAndRefusesIsDroppedAtOnce) {
  auto policy = Make({});
  for (const char* kind : {"connect", "dns"}) {
    const std::string host = absl::StrCat("http://", kind);
    EXPECT_EQ(policy->NextFetchTime(host, Answer(0, kind), kPolicyT0), kPolicyT0);
    const std::string* reason = policy->DropReason(host);
    ASSERT_NE(reason, nullptr) << kind;
    EXPECT_EQ(*reason, absl::StrCat("no server: ", kind, ", nothing answered"));
  }
  // A timeout or a reset says something is there: backed off, not dropped.
  policy->NextFetchTime("http://slow", Answer(0, "timeout"), kPolicyT0);
  EXPECT_EQ(policy->DropReason("http://slow"), nullptr);
  // An answer first: a later refusal is a failure among others.
  policy->NextFetchTime("http://was-up", Answer(200), kPolicyT0);
  EXPECT_EQ(policy->NextFetchTime("http://was-up", Answer(0, "connect"), kPolicyT0),
            kPolicyT0 + absl::Seconds(1));
  EXPECT_EQ(policy->DropReason("http://was-up"), nullptr);
}

TEST(PolitePolicy, ThrottlingWithoutRetryAfterBacksOffButNeverDrops) {
  auto policy = Make({});
  absl::Duration last;
  for (int i = 0; i < 8; ++i)
    last = policy->NextFetchTime("http://a", Answer(429), kPolicyT0) - kPolicyT0;
  EXPECT_EQ(last, absl::Seconds(128));
  EXPECT_EQ(policy->DropReason("http://a"), nullptr);
}

TEST(PolitePolicy, ForgetBoundsPerHostState) {
  auto policy = Make({});
  for (int i = 0; i < 100; ++i) policy->StartInterval(absl::StrCat("http://h", i));
  EXPECT_EQ(policy->TrackedHosts(), 100u);
  for (int i = 0; i < 100; ++i) policy->Forget(absl::StrCat("http://h", i));
  EXPECT_EQ(policy->TrackedHosts(), 0u);
}

// Through the Frontier: the dropped host's queued URLs come out at once,
// marked, without a slot; the other host is unaffected.
TEST(PolitePolicy, FrontierHandsOutADroppedHostsUrlsMarked) {
  sieve::SieveOptions sieve_options;
  sieve_options.expected_count = 1000;
  auto sieve = sieve::Sieve::Create(sieve_options);
  ASSERT_TRUE(sieve.ok());
  PolitePolicyOptions options;
  options.per_host = 1;
  options.delay = absl::ZeroDuration();
  options.drop_after = 2;
  options.cooldowns = 0;  // drop at once: this test is about the marking
  auto frontier = Frontier::Create(sieve->get(), {}, Make(options));
  ASSERT_TRUE(frontier.ok());
  std::vector<std::string> urls;
  for (int i = 0; i < 5; ++i) urls.push_back(absl::StrCat("http://bad/", i));
  urls.push_back("http://good/0");
  (*frontier)->OfferLinks(urls, 0, "");
  absl::Time now = kPolicyT0;
  int fetched_bad = 0, dropped = 0, good = 0;
  for (int step = 0; step < 100 && !(*frontier)->Exhausted(); ++step) {
    std::optional<CrawlUrl> url = (*frontier)->Next(now);
    if (!url.has_value()) {
      now = std::max(now, (*frontier)->NextReadyTime());
      continue;
    }
    if (!url->drop_reason.empty()) {
      EXPECT_EQ(url->drop_reason, "2 consecutive failures, last: http 500");
      ++dropped;
    } else if (url->authority == "http://bad") {
      ++fetched_bad;
      (*frontier)->Release(*url, Answer(500), now);
    } else {
      ++good;
      (*frontier)->Release(*url, Answer(200), now);
    }
    (*frontier)->Done(*url);
  }
  EXPECT_TRUE((*frontier)->Exhausted());
  EXPECT_EQ(fetched_bad, 2);
  EXPECT_EQ(dropped, 3);
  EXPECT_EQ(good, 1);
  // A URL of the dropped host offered later is not fetched either.
  CrawlUrl late_url;
  late_url.url = "http://bad/late";
  (*frontier)->Offer(late_url);
  std::optional<CrawlUrl> late = (*frontier)->Next(now);
  ASSERT_TRUE(late.has_value());
  EXPECT_FALSE(late->drop_reason.empty());
}

}  // namespace
}  // namespace crawler
