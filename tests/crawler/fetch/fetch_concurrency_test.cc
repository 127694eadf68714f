// Many transfers at once, connection reuse, the transfer cap, and Shutdown's
// promise: it returns within grace plus a margin and every accepted request
// gets exactly one callback.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <string>
#include <thread>

#include "crawler/fetch.h"
#include "crawler/fetch/loopback_server.h"

namespace crawler::testing {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// Polls `condition` every millisecond for up to `limit`.
template <class Condition>
bool WaitUntil(Condition condition, milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (!condition()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return true;
}

class FetchConcurrencyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // "/slow/<ms>/<n>": answers "page <n>" after <ms>, tracking how many
    // handlers run at once.
    server_.server().Get(R"(/slow/(\d+)/(\d+))",
                         [this](const httplib::Request& req, httplib::Response& res) {
                           const int now = ++active_;
                           int peak = peak_.load();
                           while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
                           }
                           std::this_thread::sleep_for(milliseconds(std::stoi(req.matches[1])));
                           --active_;
                           res.set_content("page " + std::string(req.matches[2]), "text/html");
                         });
    server_.server().Get("/stall", [this](const httplib::Request&, httplib::Response& res) {
      server_.StallUntilReleased(std::chrono::seconds(30));
      res.set_content("late", "text/plain");
    });
    server_.Start();
  }

  std::string Slow(int ms, uint64_t n) const {
    return server_.Url("/slow/" + std::to_string(ms) + "/" + std::to_string(n));
  }

  std::atomic<int> active_{0};
  std::atomic<int> peak_{0};
  LoopbackServer server_{96};  // more threads than the 64 connections below
};

TEST_F(FetchConcurrencyTest, FiveHundredRequestsSixtyFourAtOnceReuseConnections) {
  constexpr int kRequests = 500;
  constexpr int kConnections = 64;
  FetchOptions options = TestOptions();
  options.max_transfers = kConnections;
  ResultCollector collector;
  auto fetcher = Fetcher::Create(options, collector.Callback());
  ASSERT_TRUE(fetcher.ok()) << fetcher.status();
  for (uint64_t i = 0; i < kRequests; ++i) {
    ASSERT_TRUE((*fetcher)->Submit({.url = Slow(20, i), .tag = i}));
  }
  const std::vector<FetchResult> results = collector.WaitFor(kRequests, std::chrono::seconds(120));
  ASSERT_EQ(results.size(), size_t{kRequests});
  std::map<uint64_t, int> seen;
  for (const FetchResult& r : results) {
    ++seen[r.tag];
    EXPECT_EQ(r.error, "") << r.url;
    EXPECT_EQ(r.body, "page " + std::to_string(r.tag));
  }
  EXPECT_EQ(seen.size(), size_t{kRequests}) << "every tag exactly once";
  EXPECT_TRUE(WaitUntil([&] { return (*fetcher)->InFlight() == 0; }, milliseconds(5000)));
  const FetchStats stats = (*fetcher)->Stats();
  EXPECT_EQ(stats.submitted, uint64_t{kRequests});
  EXPECT_EQ(stats.completed, uint64_t{kRequests});
  EXPECT_EQ(stats.failed, 0u);
  // The cap holds, and it is actually used.
  EXPECT_LE(peak_.load(), kConnections);
  EXPECT_GE(peak_.load(), 16);
  // Reuse: one TCP connection per concurrent transfer at most, not per request.
  EXPECT_LE(server_.DistinctClientPorts(), size_t{kConnections});
  EXPECT_EQ(stats.connections_opened, server_.DistinctClientPorts());
}

TEST_F(FetchConcurrencyTest, ShutdownAbandonsWhatOutlivesTheGraceAndCallsBackOnce) {
  constexpr int kRequests = 20;
  FetchOptions options = TestOptions();
  options.max_transfers = 8;  // 8 stall at the server, 12 wait in the queue
  ResultCollector collector;
  auto fetcher = Fetcher::Create(options, collector.Callback());
  ASSERT_TRUE(fetcher.ok()) << fetcher.status();
  for (uint64_t i = 0; i < kRequests; ++i) {
    ASSERT_TRUE((*fetcher)->Submit({.url = server_.Url("/stall"), .tag = i}));
  }
  ASSERT_TRUE(WaitUntil([&] { return server_.Requests() == 8; }, milliseconds(10000)));
  EXPECT_EQ((*fetcher)->InFlight(), size_t{kRequests});
  EXPECT_EQ((*fetcher)->Stats().queued, size_t{kRequests - 8});

  const auto started = Clock::now();
  (*fetcher)->Shutdown(milliseconds(300));
  const auto took = Clock::now() - started;
  EXPECT_GE(took, milliseconds(290));
  EXPECT_LT(took, milliseconds(300 + 2000));

  // Shutdown returns after the callbacks: no waiting needed.
  EXPECT_EQ(collector.Count(), size_t{kRequests});
  std::map<uint64_t, int> seen;
  for (const FetchResult& r : collector.WaitFor(kRequests, milliseconds(0))) {
    ++seen[r.tag];
    EXPECT_EQ(r.error, kFetchAborted);
  }
  EXPECT_EQ(seen.size(), size_t{kRequests});
  EXPECT_EQ((*fetcher)->InFlight(), 0u);
  EXPECT_FALSE((*fetcher)->Submit({.url = server_.Url("/stall")}));
  (*fetcher)->Shutdown(milliseconds(0));  // idempotent
  EXPECT_EQ(collector.Count(), size_t{kRequests});
}

TEST_F(FetchConcurrencyTest, ShutdownLetsRunningTransfersFinishWithinGrace) {
  constexpr int kRequests = 10;
  ResultCollector collector;
  auto fetcher = Fetcher::Create(TestOptions(), collector.Callback());
  ASSERT_TRUE(fetcher.ok()) << fetcher.status();
  for (uint64_t i = 0; i < kRequests; ++i) {
    ASSERT_TRUE((*fetcher)->Submit({.url = Slow(300, i), .tag = i}));
  }
  ASSERT_TRUE(WaitUntil([&] { return server_.Requests() == kRequests; }, milliseconds(10000)));
  (*fetcher)->Shutdown(std::chrono::seconds(20));
  const std::vector<FetchResult> results = collector.WaitFor(kRequests, milliseconds(0));
  ASSERT_EQ(results.size(), size_t{kRequests});
  for (const FetchResult& r : results) {
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.body, "page " + std::to_string(r.tag));
  }
}

TEST_F(FetchConcurrencyTest, CallbackMaySubmitTheNextRequestAndReuseTheConnection) {
  // Like a redirect chain: each result submits the next URL from the callback.
  constexpr uint64_t kChain = 30;
  ResultCollector collector;
  Fetcher* self = nullptr;
  auto on_done = collector.Callback();
  auto fetcher = Fetcher::Create(TestOptions(), [&](FetchResult&& r) {
    const uint64_t next = r.tag + 1;
    on_done(std::move(r));  // first: the next result may arrive on the other thread at once
    if (next < kChain) {
      EXPECT_TRUE(self->Submit({.url = Slow(0, next), .tag = next}));
    }
  });
  ASSERT_TRUE(fetcher.ok()) << fetcher.status();
  self = fetcher->get();
  ASSERT_TRUE(self->Submit({.url = Slow(0, 0), .tag = 0}));
  const std::vector<FetchResult> results = collector.WaitFor(kChain, std::chrono::seconds(60));
  ASSERT_EQ(results.size(), kChain);
  for (uint64_t i = 0; i < kChain; ++i) {
    EXPECT_EQ(results[i].tag, i);
    EXPECT_EQ(results[i].body, "page " + std::to_string(i));
  }
  // Two fetcher threads, yet one connection: a host's requests stay on one
  // thread, whose connection cache keeps the connection alive between them.
  EXPECT_EQ(server_.DistinctClientPorts(), 1u);
  EXPECT_EQ(self->Stats().connections_opened, 1u);
  self->Shutdown(milliseconds(1000));
}

}  // namespace
}  // namespace crawler::testing
