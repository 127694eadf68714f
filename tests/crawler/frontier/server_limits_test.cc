// HostQueues grouped by server (HostAddresses): a URL starts only when both
// its authority and its server allow it (the policy's AddressConnections and
// AddressInterval), on a clock the test moves; and PolitePolicy's per-IP
// limits, their automatic values and their [[hosts]] overrides.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "crawler/host_queues.h"
#include "crawler/polite_policy.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(2'000'000);

// Answers from a map; an authority not in it has no address ("").
class MapAddresses : public HostAddresses {
 public:
  std::optional<std::string> AddressOf(const std::string& authority) override {
    ++asked[authority];
    auto it = answers.find(authority);
    return it == answers.end() ? std::optional<std::string>("") : it->second;
  }
  std::map<std::string, std::optional<std::string>> answers;
  std::map<std::string, int> asked;
};

// FixedDelayPolicy per authority, plus fixed per-server limits.
class ServerPolicy : public FixedDelayPolicy {
 public:
  ServerPolicy(int per_host, absl::Duration delay, int per_ip, absl::Duration ip_delay)
      : FixedDelayPolicy(per_host, delay), per_ip_(per_ip), ip_delay_(ip_delay) {}
  int AddressConnections(const std::string&) override { return per_ip_; }
  absl::Duration AddressInterval(const std::string&) override { return ip_delay_; }

 private:
  const int per_ip_;
  const absl::Duration ip_delay_;
};

CrawlUrl U(const std::string& url) {
  CrawlUrl u;
  u.url = url;
  return u;
}

FetchOutcome Answered(absl::Duration elapsed) {
  FetchOutcome outcome;
  outcome.status = 200;
  outcome.elapsed = elapsed;
  return outcome;
}

struct Start {
  absl::Time at;
  std::string address;
};

// Runs the queues to the end: every URL taken as soon as it is ready, each
// fetch lasting `fetch_time`; returns the starts in order. Bounded: at most
// 10 x the URLs' rounds.
std::vector<Start> RunAll(HostQueues& q, absl::Duration fetch_time, size_t urls) {
  std::vector<Start> starts;
  std::multimap<absl::Time, std::string> running;  // end -> authority
  absl::Time now = kT0;
  for (size_t round = 0; round < 10 * urls + 10 && starts.size() < urls; ++round) {
    while (auto url = q.TakeReady(now)) {
      starts.push_back({now, url->address});
      running.emplace(now + fetch_time, url->authority);
    }
    const absl::Time next_end = running.empty() ? absl::InfiniteFuture() : running.begin()->first;
    now = std::min(q.NextReadyTime(), next_end);
    if (now == absl::InfiniteFuture()) break;
    while (!running.empty() && running.begin()->first <= now) {
      q.Release(running.begin()->second, Answered(fetch_time), running.begin()->first);
      running.erase(running.begin());
    }
  }
  return starts;
}

// Most fetches to `address` running at once, from the starts and fetch_time.
int PeakOn(const std::vector<Start>& starts, const std::string& address,
           absl::Duration fetch_time) {
  int peak = 0;
  for (const Start& s : starts) {
    if (s.address != address) continue;
    int running = 0;
    for (const Start& other : starts) {
      if (other.address == address && other.at <= s.at && s.at < other.at + fetch_time) ++running;
    }
    peak = std::max(peak, running);
  }
  return peak;
}

TEST(ServerLimits, FiftyNamesOnOneServerShareItsConnectionsAndInterval) {
  ServerPolicy policy(/*per_host=*/2, absl::ZeroDuration(), /*per_ip=*/2, absl::Milliseconds(100));
  MapAddresses addresses;
  HostQueues q(&policy, 0, &addresses);
  for (int i = 0; i < 50; ++i) {
    const std::string authority = absl::StrCat("http://h", i, ".test");
    addresses.answers[authority] = "127.0.0.1:80";
    q.Add(U(authority + "/a"));
    q.Add(U(authority + "/b"));
  }
  const absl::Duration fetch_time = absl::Milliseconds(350);
  const std::vector<Start> starts = RunAll(q, fetch_time, 100);
  ASSERT_EQ(starts.size(), 100u);
  for (size_t i = 1; i < starts.size(); ++i) {
    EXPECT_GE(starts[i].at - starts[i - 1].at, absl::Milliseconds(100)) << "start " << i;
  }
  EXPECT_EQ(PeakOn(starts, "127.0.0.1:80", fetch_time), 2);
  for (const Start& s : starts) EXPECT_EQ(s.address, "127.0.0.1:80");
  EXPECT_GT(q.server_waits(), 0u);
  // Each name was asked once: the answer is kept with its authority.
  for (const auto& [authority, asked] : addresses.asked) EXPECT_EQ(asked, 1) << authority;
}

// What the crawl names when it waits: a name held by its server's interval
// is held by the server (not its own delay), one held by its own delay by
// itself; the waits and starts are counted per server.
TEST(ServerLimits, AWaitSaysWhetherTheServerOrTheHostHoldsIt) {
  ServerPolicy policy(/*per_host=*/1, absl::Seconds(5), /*per_ip=*/1, absl::Seconds(1));
  MapAddresses addresses;
  HostQueues q(&policy, 0, &addresses);
  addresses.answers["http://a.test"] = "127.0.0.1:80";
  addresses.answers["http://b.test"] = "127.0.0.1:80";
  q.Add(U("http://a.test/1"));
  q.Add(U("http://b.test/1"));
  std::optional<CrawlUrl> first = q.TakeReady(kT0);
  ASSERT_TRUE(first.has_value());
  EXPECT_FALSE(q.TakeReady(kT0).has_value());  // the other name: the server's one slot is busy
  q.Release(first->authority, Answered(absl::Milliseconds(10)), kT0 + absl::Milliseconds(10));
  const std::string other = first->authority == "http://a.test" ? "http://b.test" : "http://a.test";
  // Woken by the release, then held by the server's 1 s interval.
  EXPECT_FALSE(q.TakeReady(kT0 + absl::Milliseconds(10)).has_value());
  ASSERT_EQ(q.NextReadyAuthority(), other);
  EXPECT_EQ(q.NextReadyTime(), kT0 + absl::Seconds(1));
  std::string address;
  EXPECT_EQ(q.ServerHoldOf(other, q.NextReadyTime(), &address), ServerHold::kInterval);
  EXPECT_EQ(address, "127.0.0.1:80");
  EXPECT_EQ(q.server_slot_waits(), 1u);
  EXPECT_EQ(q.server_delay_waits(), 1u);
  // Started, the other name's next URL waits for its own 5 s delay.
  ASSERT_TRUE(q.TakeReady(kT0 + absl::Seconds(1)).has_value());
  q.Add(U(other + "/2"));
  q.Release(other, Answered(absl::Milliseconds(10)), kT0 + absl::Seconds(1));
  ASSERT_EQ(q.NextReadyAuthority(), other);
  EXPECT_EQ(q.ServerHoldOf(other, q.NextReadyTime(), &address), ServerHold::kNone);
  const auto busiest = q.BusiestServers(10);
  ASSERT_EQ(busiest.size(), 1u);
  EXPECT_EQ(busiest[0].first, "127.0.0.1:80");
  EXPECT_EQ(busiest[0].second.starts, 2u);
  EXPECT_EQ(busiest[0].second.slot_waits, 1u);
  EXPECT_EQ(busiest[0].second.delay_waits, 1u);
}

// The fleet's server slots in memory, on the test's clock: what Redis
// keeps for a shared frontier (RedisSieve::TakeServerSlot), minus leases.
class FakeFleet : public ServerLeases {
 public:
  explicit FakeFleet(const absl::Time* now) : now_(now) {}
  Grant Take(const std::string& address, int limit, absl::Duration interval) override {
    if (next_[address] > *now_) return {"", next_[address] - *now_};
    if (limit > 0 && static_cast<int>(held_[address].size()) >= limit) return {"", {}};
    const std::string token = absl::StrCat(++tokens_);
    held_[address].insert(token);
    if (interval > absl::ZeroDuration()) next_[address] = *now_ + interval;
    return {token, {}};
  }
  void Give(const std::string& address, const std::string& token,
            absl::Duration next_start_in) override {
    held_[address].erase(token);
    next_[address] = std::max(next_[address], *now_ + next_start_in);
  }
  std::map<std::string, std::set<std::string>> held_;

 private:
  const absl::Time* now_;
  std::map<std::string, absl::Time> next_;
  int tokens_ = 0;
};

// Two processes' queues on one fleet: together never more than per_ip on
// the server; the refused one asks again kFleetPoll later and names the
// fleet's lease as what holds it.
TEST(ServerLimits, TwoQueuesOfAFleetShareTheServersSlots) {
  ServerPolicy policy(/*per_host=*/1, absl::ZeroDuration(), /*per_ip=*/2, absl::ZeroDuration());
  MapAddresses addresses;
  absl::Time now = kT0;
  FakeFleet fleet(&now);
  HostQueues first(&policy, 0, &addresses, &fleet);
  HostQueues second(&policy, 0, &addresses, &fleet);
  for (int i = 0; i < 10; ++i) {
    const std::string authority = absl::StrCat("http://h", i, ".test");
    addresses.answers[authority] = "127.0.0.1:80";
    (i < 5 ? first : second).Add(U(authority + "/a"));
  }
  std::vector<CrawlUrl> running;
  while (auto url = first.TakeReady(now)) running.push_back(*url);
  EXPECT_EQ(running.size(), 2u);                    // the server's per_ip, in the first process
  EXPECT_FALSE(second.TakeReady(now).has_value());  // the fleet's slots are all held
  EXPECT_EQ(fleet.held_["127.0.0.1:80"].size(), 2u);
  EXPECT_EQ(second.NextReadyTime(), kT0 + HostQueues::kFleetPoll);
  std::string address;
  EXPECT_EQ(second.ServerHoldOf(second.NextReadyAuthority(), second.NextReadyTime(), &address),
            ServerHold::kFleet);
  EXPECT_EQ(address, "127.0.0.1:80");
  EXPECT_GT(second.server_slot_waits(), 0u);
  // One fetch of the first ends: the second takes that slot at its next ask.
  now = kT0 + absl::Milliseconds(5);
  first.Release(running[0].authority, Answered(absl::Milliseconds(5)), now);
  EXPECT_EQ(fleet.held_["127.0.0.1:80"].size(), 1u);
  now = second.NextReadyTime();
  EXPECT_TRUE(second.TakeReady(now).has_value());
  EXPECT_FALSE(second.TakeReady(now).has_value());
  EXPECT_FALSE(first.TakeReady(now).has_value());
  EXPECT_EQ(fleet.held_["127.0.0.1:80"].size(), 2u);
}

TEST(ServerLimits, FiftyNamesOnFiftyServersStartTogether) {
  ServerPolicy policy(2, absl::ZeroDuration(), 2, absl::Milliseconds(100));
  MapAddresses addresses;
  HostQueues q(&policy, 0, &addresses);
  for (int i = 0; i < 50; ++i) {
    const std::string authority = absl::StrCat("http://h", i, ".test");
    addresses.answers[authority] = absl::StrCat("127.0.0.", i + 2, ":80");
    q.Add(U(authority + "/a"));
  }
  int started = 0;
  while (q.TakeReady(kT0).has_value()) ++started;
  EXPECT_EQ(started, 50);
  EXPECT_EQ(q.server_waits(), 0u);
}

TEST(ServerLimits, AnAuthorityWaitsWhileItsAddressIsLookedUp) {
  ServerPolicy policy(1, absl::ZeroDuration(), 1, absl::Seconds(1));
  MapAddresses addresses;
  addresses.answers["http://slow.test"] = std::nullopt;  // being looked up
  HostQueues q(&policy, 0, &addresses);
  q.Add(U("http://slow.test/"));
  EXPECT_FALSE(q.TakeReady(kT0).has_value());
  EXPECT_EQ(q.NextReadyTime(), kT0 + HostQueues::kAddressRetry);
  addresses.answers["http://slow.test"] = "192.0.2.1:80";
  auto url = q.TakeReady(kT0 + HostQueues::kAddressRetry);
  ASSERT_TRUE(url.has_value());
  EXPECT_EQ(url->address, "192.0.2.1:80");
  EXPECT_EQ(addresses.asked["http://slow.test"], 2);
}

TEST(ServerLimits, NoAddressMeansNoGroupingAndNoConnectAddress) {
  // A name that did not resolve is fetched as before (curl finds the dns
  // error); it shares no limit with other unresolved names.
  ServerPolicy policy(1, absl::ZeroDuration(), 1, absl::Seconds(1));
  MapAddresses addresses;  // every name: ""
  HostQueues q(&policy, 0, &addresses);
  q.Add(U("http://a.invalid/"));
  q.Add(U("http://b.invalid/"));
  auto a = q.TakeReady(kT0);
  auto b = q.TakeReady(kT0);
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(a->address, "");
  EXPECT_EQ(q.servers(), 0u);
}

TEST(ServerLimits, AnUnfetchedSlotGivesTheServerIntervalBack) {
  // robots.txt forbids the first URL: nothing was sent, so neither the
  // host's nor the server's interval holds the next one.
  ServerPolicy policy(1, absl::Seconds(1), 4, absl::Seconds(1));
  MapAddresses addresses;
  addresses.answers["http://a.test"] = "192.0.2.1:80";
  HostQueues q(&policy, 0, &addresses);
  q.Add(U("http://a.test/forbidden"));
  q.Add(U("http://a.test/allowed"));
  auto forbidden = q.TakeReady(kT0);
  ASSERT_TRUE(forbidden.has_value());
  q.Release("http://a.test", FetchOutcome{}, kT0);
  auto allowed = q.TakeReady(kT0);
  ASSERT_TRUE(allowed.has_value());
  EXPECT_EQ(allowed->url, "http://a.test/allowed");
  // A sent one holds both: the next start is a second later.
  q.Add(U("http://a.test/next"));
  q.Release("http://a.test", Answered(absl::Milliseconds(5)), kT0);
  EXPECT_FALSE(q.TakeReady(kT0).has_value());
  EXPECT_TRUE(q.TakeReady(kT0 + absl::Seconds(1)).has_value());
}

TEST(ServerLimits, ParkedAuthoritiesAllWakeWhenTheServerIsIdle) {
  // One connection on the server: b and c park behind a's fetch; its end
  // wakes them, and both are fetched in turn without another Add.
  ServerPolicy policy(1, absl::ZeroDuration(), 1, absl::ZeroDuration());
  MapAddresses addresses;
  for (const char* name : {"http://a.test", "http://b.test", "http://c.test"}) {
    addresses.answers[name] = "192.0.2.1:80";
  }
  HostQueues q(&policy, 0, &addresses);
  q.Add(U("http://a.test/"));
  q.Add(U("http://b.test/"));
  q.Add(U("http://c.test/"));
  ASSERT_TRUE(q.TakeReady(kT0).has_value());
  EXPECT_FALSE(q.TakeReady(kT0).has_value());
  EXPECT_EQ(q.NextReadyTime(), absl::InfiniteFuture());  // parked: no timer, a's end wakes
  q.Release("http://a.test", Answered(absl::Milliseconds(5)), kT0);
  auto b = q.TakeReady(kT0);
  ASSERT_TRUE(b.has_value());
  EXPECT_FALSE(q.TakeReady(kT0).has_value());
  q.Release(b->authority, Answered(absl::Milliseconds(5)), kT0);
  EXPECT_TRUE(q.TakeReady(kT0).has_value());
  EXPECT_EQ(q.queued(), 0u);
}

TEST(PolitePolicyServerLimits, AutomaticValuesNeverHoldASingleHostBelowItsOwn) {
  PolitePolicyOptions options;
  options.per_host = 2;
  options.delay = absl::Seconds(1);
  HostOverride fast;
  fast.pattern = "fast.test";
  fast.per_host = 8;
  fast.delay = absl::Milliseconds(100);
  options.rules.push_back(fast);
  auto policy = PolitePolicy::Create(options);
  ASSERT_TRUE(policy.ok()) << policy.status();
  // max(4, per_host) and delay / 4.
  EXPECT_EQ((*policy)->AddressConnections("http://a.test"), 4);
  EXPECT_EQ((*policy)->AddressInterval("http://a.test"), absl::Milliseconds(250));
  EXPECT_EQ((*policy)->AddressConnections("http://fast.test"), 8);
  EXPECT_EQ((*policy)->AddressInterval("http://fast.test"), absl::Milliseconds(25));
}

TEST(PolitePolicyServerLimits, FlagsAndRulesOverride) {
  PolitePolicyOptions options;
  options.per_ip = 1;
  options.ip_delay = absl::Milliseconds(500);
  HostOverride shared;
  shared.pattern = "*.shared.test";
  shared.per_ip = 3;
  shared.ip_delay = absl::Seconds(2);
  options.rules.push_back(shared);
  auto policy = PolitePolicy::Create(options);
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_EQ((*policy)->AddressConnections("http://a.test"), 1);
  EXPECT_EQ((*policy)->AddressInterval("http://a.test"), absl::Milliseconds(500));
  EXPECT_EQ((*policy)->AddressConnections("http://x.shared.test"), 3);
  EXPECT_EQ((*policy)->AddressInterval("http://x.shared.test"), absl::Seconds(2));

  PolitePolicyOptions bad;
  bad.per_ip = -1;
  EXPECT_FALSE(PolitePolicy::Create(bad).ok());
  PolitePolicyOptions bad_rule;
  HostOverride negative;
  negative.pattern = "x";
  negative.ip_delay = absl::Seconds(-1);
  bad_rule.rules.push_back(negative);
  EXPECT_FALSE(PolitePolicy::Create(bad_rule).ok());
}

}  // namespace
}  // namespace crawler
