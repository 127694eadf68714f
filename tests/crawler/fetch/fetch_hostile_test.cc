// Servers that misbehave: stall, drip, or drop the connection
// mid-body. Each must end in a recorded error kind, quickly.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

#include "crawler/fetch.h"
#include "crawler/fetch/loopback_server.h"

namespace crawler::testing {
namespace {

using std::chrono::milliseconds;

class FetchHostileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.server().Get("/stall", [this](const httplib::Request&, httplib::Response& res) {
      server_.StallUntilReleased(std::chrono::seconds(20));
      res.set_content("late", "text/plain");
    });
    server_.server().Get("/drip", [this](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/html", [this](size_t offset, httplib::DataSink& sink) {
        // One byte per 200 ms: 5 B/s, far under a 100 B/s low-speed limit.
        server_.StallUntilReleased(milliseconds(200));
        if (offset >= 200) return false;
        sink.write("x", 1);
        return true;
      });
    });
    server_.server().Get("/drop", [](const httplib::Request&, httplib::Response& res) {
      // Promise 100000 bytes, send 1000, then give up: httplib closes the socket.
      res.set_content_provider(100000, "text/html",
                               [](size_t offset, size_t, httplib::DataSink& sink) {
                                 if (offset >= 1000) return false;
                                 sink.write(std::string(1000, 'd').data(), 1000);
                                 return true;
                               });
    });
    server_.Start();
  }

  LoopbackServer server_;
};

TEST_F(FetchHostileTest, StalledResponseHitsTheTotalTimeout) {
  FetchOptions options = TestOptions();
  options.total_timeout_s = 0.5;
  const FetchResult r = FetchOne(options, server_.Url("/stall"));
  EXPECT_EQ(r.error, kFetchTimeout);
  EXPECT_EQ(r.status, 0);
  EXPECT_GE(r.fetch_ms, 450);
  EXPECT_LT(r.fetch_ms, 5000);
}

TEST_F(FetchHostileTest, SlowDripHitsTheLowSpeedLimit) {
  FetchOptions options = TestOptions();
  options.total_timeout_s = 30;
  options.low_speed_bytes = 100;
  options.low_speed_time_s = 1;
  const FetchResult r = FetchOne(options, server_.Url("/drip"));
  EXPECT_EQ(r.error, kFetchTimeout);
  EXPECT_EQ(r.status, 200);  // the headers came; the body crawled
  EXPECT_LT(r.body.size(), 200u);
  EXPECT_LT(r.fetch_ms, 10000) << "low-speed rule, not the 30 s total, must end it";
}

TEST_F(FetchHostileTest, ConnectionDroppedMidBodyIsAReset) {
  const FetchResult r = FetchOne(TestOptions(), server_.Url("/drop"));
  EXPECT_EQ(r.error, kFetchReset);
  EXPECT_EQ(r.status, 200);
  EXPECT_LT(r.body.size(), 100000u);
}

}  // namespace
}  // namespace crawler::testing
