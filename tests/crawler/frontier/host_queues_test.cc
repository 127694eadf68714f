// HostQueues: per-authority FIFO, connection limit, start interval, back-off
// through the policy, and round-robin fairness between ready authorities.
#include "crawler/host_queues.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

const absl::Time kQueuesT0 = absl::FromUnixSeconds(1'000'000);

CrawlUrl U(const std::string& url) {
  CrawlUrl u;
  u.url = url;
  return u;
}

FetchOutcome Status(int status) {
  FetchOutcome outcome;
  outcome.status = status;
  return outcome;
}

TEST(AuthorityOf, SchemeHostAndPortOfSerializedUrls) {
  EXPECT_EQ(AuthorityOf("http://a.com/x/y?z"), "http://a.com");
  EXPECT_EQ(AuthorityOf("https://a.com:8443/"), "https://a.com:8443");
  EXPECT_EQ(AuthorityOf("http://user:pw@a.com:81/p"), "http://a.com:81");
  EXPECT_EQ(AuthorityOf("http://[::1]:8080/"), "http://[::1]:8080");
  EXPECT_EQ(AuthorityOf("http://a.com?q"), "http://a.com");
}

// AuthorityView is AuthorityOf, copied only for a URL with userinfo.
TEST(AuthorityView, IsAuthorityOfWithoutACopyForUrlsWithoutUserinfo) {
  for (const std::string url :
       {"http://a.com/x/y?z", "https://a.com:8443/", "http://user:pw@a.com:81/p",
        "http://u@v@a.com", "http://[::1]:8080/", "http://a.com?q", "http://a.com#f@g",
        "http://a.com/p@q", "http://a.com", "a.com/x", "mailto:x@y", "", "http://"}) {
    std::string scratch;
    const std::string_view view = AuthorityView(url, scratch);
    EXPECT_EQ(view, AuthorityOf(url)) << url;
    const bool userinfo = url.starts_with("http://u") && url.find('@') != std::string::npos;
    EXPECT_EQ(!scratch.empty(), userinfo) << url;
  }
}

TEST(HostQueues, FifoWithinAnAuthority) {
  FixedDelayPolicy policy(1, absl::ZeroDuration());
  HostQueues q(&policy);
  q.Add(U("http://a/1"));
  q.Add(U("http://a/2"));
  auto first = q.TakeReady(kQueuesT0);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->url, "http://a/1");
  EXPECT_EQ(first->authority, "http://a");
  // One connection per host: the second waits for the first to be released.
  EXPECT_FALSE(q.TakeReady(kQueuesT0).has_value());
  EXPECT_EQ(q.NextReadyTime(), absl::InfiniteFuture());
  q.Release("http://a", {}, kQueuesT0);
  auto second = q.TakeReady(kQueuesT0);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->url, "http://a/2");
  EXPECT_EQ(q.queued(), 0u);
  EXPECT_EQ(q.fetching(), 1u);
}

TEST(HostQueues, HigherPriorityFirstWithinAnAuthorityThenArrivalOrder) {
  FixedDelayPolicy policy(1, absl::ZeroDuration());
  HostQueues q(&policy);
  const std::vector<std::pair<std::string, int32_t>> added = {
      {"http://a/1", 0},  {"http://a/2", 5}, {"http://a/3", 0}, {"http://a/4", 5},
      {"http://a/5", -3}, {"http://a/6", 9}, {"http://a/7", 0}};
  for (const auto& [url, priority] : added) {
    CrawlUrl u = U(url);
    u.priority = priority;
    q.Add(u);
  }
  std::vector<std::string> order;
  while (auto next = q.TakeReady(kQueuesT0)) {
    order.push_back(next->url);
    q.Release(next->authority, FetchOutcome{}, kQueuesT0);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"http://a/6", "http://a/2", "http://a/4", "http://a/1",
                                             "http://a/3", "http://a/7", "http://a/5"}));
}

TEST(HostQueues, AtCapNamesTheAuthoritiesWithAFullShare) {
  FixedDelayPolicy policy(4, absl::ZeroDuration());
  HostQueues q(&policy, /*max_queued_per_host=*/2);
  q.Add(U("http://a/1"));
  EXPECT_FALSE(q.AtCap("http://a"));
  q.Add(U("http://a/2"));
  q.Add(U("http://b/1"));
  EXPECT_TRUE(q.AtCap("http://a"));
  EXPECT_FALSE(q.AtCap("http://b"));
  q.Add(U("http://a/3"));
  EXPECT_EQ(q.over_cap(), 1u);
  EXPECT_EQ(q.at_cap().size(), 1u);
  ASSERT_TRUE(q.TakeReady(kQueuesT0).has_value());  // a/1: a still has 2 queued
  EXPECT_TRUE(q.AtCap("http://a"));
  ASSERT_TRUE(q.TakeReady(kQueuesT0).has_value());  // b/1
  ASSERT_TRUE(q.TakeReady(kQueuesT0).has_value());  // a/2: one left, under the cap
  EXPECT_FALSE(q.AtCap("http://a"));
  EXPECT_TRUE(q.at_cap().empty());
  EXPECT_EQ(q.over_cap(), 0u);
}

TEST(HostQueues, ConnectionLimitPerAuthorityNotGlobal) {
  FixedDelayPolicy policy(2, absl::ZeroDuration());
  HostQueues q(&policy);
  for (int i = 0; i < 3; ++i) q.Add(U("http://a/" + std::to_string(i)));
  q.Add(U("http://b/0"));
  int from_a = 0, from_b = 0;
  while (auto u = q.TakeReady(kQueuesT0)) (u->authority == "http://a" ? from_a : from_b)++;
  EXPECT_EQ(from_a, 2);
  EXPECT_EQ(from_b, 1);
  EXPECT_EQ(q.queued(), 1u);
}

TEST(HostQueues, StartIntervalSpacesFetchesOfOneHost) {
  FixedDelayPolicy policy(4, absl::Seconds(1));
  HostQueues q(&policy);
  q.Add(U("http://a/1"));
  q.Add(U("http://a/2"));
  ASSERT_TRUE(q.TakeReady(kQueuesT0).has_value());
  EXPECT_FALSE(q.TakeReady(kQueuesT0 + absl::Milliseconds(999)).has_value());
  EXPECT_EQ(q.NextReadyTime(), kQueuesT0 + absl::Seconds(1));
  EXPECT_TRUE(q.TakeReady(kQueuesT0 + absl::Seconds(1)).has_value());
}

TEST(HostQueues, OtherHostsAreNotHeldUpByADelayedOne) {
  FixedDelayPolicy policy(1, absl::Seconds(10));
  HostQueues q(&policy);
  q.Add(U("http://a/1"));
  q.Add(U("http://a/2"));
  q.Add(U("http://b/1"));
  ASSERT_EQ(q.TakeReady(kQueuesT0)->authority, "http://a");
  q.Release("http://a", {}, kQueuesT0);
  auto next = q.TakeReady(kQueuesT0);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->authority, "http://b");
}

// A policy that backs off after an error, as PolitePolicy does.
class BackOffPolicy : public HostPolicy {
 public:
  int MaxConnections(const std::string&) override { return 1; }
  absl::Duration StartInterval(const std::string&) override { return absl::ZeroDuration(); }
  absl::Time NextFetchTime(const std::string&, const FetchOutcome& outcome,
                           absl::Time now) override {
    return outcome.status == 503 ? now + absl::Minutes(1) : now;
  }
};

TEST(HostQueues, PolicyBackOffDelaysTheAuthority) {
  BackOffPolicy policy;
  HostQueues q(&policy);
  q.Add(U("http://a/1"));
  q.Add(U("http://a/2"));
  ASSERT_TRUE(q.TakeReady(kQueuesT0).has_value());
  q.Release("http://a", Status(503), kQueuesT0);
  EXPECT_FALSE(q.TakeReady(kQueuesT0 + absl::Seconds(59)).has_value());
  EXPECT_TRUE(q.TakeReady(kQueuesT0 + absl::Minutes(1)).has_value());
}

TEST(HostQueues, ReadyAuthoritiesTakeTurns) {
  FixedDelayPolicy policy(1, absl::ZeroDuration());
  HostQueues q(&policy);
  for (int i = 0; i < 3; ++i) {
    q.Add(U("http://a/" + std::to_string(i)));
    q.Add(U("http://b/" + std::to_string(i)));
  }
  std::string order;
  for (int i = 0; i < 6; ++i) {
    auto u = q.TakeReady(kQueuesT0);
    ASSERT_TRUE(u.has_value());
    order += u->authority.back();
    q.Release(u->authority, {}, kQueuesT0);
  }
  EXPECT_EQ(order, "ababab");
}

// Five URLs robots.txt forbids took five start intervals
// (Crawl-delay: 2 made them 10 s) though none was requested. A slot given
// back unfetched right after its take gives back the interval too.
TEST(HostQueues, ASlotGivenBackUnfetchedCostsNoStartInterval) {
  FixedDelayPolicy policy(1, absl::Seconds(2));
  HostQueues q(&policy);
  for (int i = 0; i < 6; ++i) q.Add(U("http://a/" + std::to_string(i)));
  for (int i = 0; i < 5; ++i) {  // each blocked: handed back unfetched at once
    auto blocked = q.TakeReady(kQueuesT0);
    ASSERT_TRUE(blocked.has_value()) << i;
    EXPECT_EQ(blocked->url, "http://a/" + std::to_string(i));
    q.Release("http://a", FetchOutcome{}, kQueuesT0);
  }
  auto allowed = q.TakeReady(kQueuesT0);
  ASSERT_TRUE(allowed.has_value());
  EXPECT_EQ(allowed->url, "http://a/5");
  // A fetch that was made keeps its interval.
  q.Add(U("http://a/6"));
  q.Release("http://a", Status(200), kQueuesT0);
  EXPECT_FALSE(q.TakeReady(kQueuesT0 + absl::Seconds(1)).has_value());
  EXPECT_TRUE(q.TakeReady(kQueuesT0 + absl::Seconds(2)).has_value());
}

TEST(HostQueues, ReleaseOfUnknownAuthorityIsIgnored) {
  FixedDelayPolicy policy(1, absl::ZeroDuration());
  HostQueues q(&policy);
  q.Release("http://nowhere", {}, kQueuesT0);
  EXPECT_EQ(q.fetching(), 0u);
  EXPECT_EQ(q.authorities(), 0u);
}

}  // namespace
}  // namespace crawler
