// ParseMetricsAddress: a port alone is loopback; a typed host is kept as typed.
#include "crawler/metrics_server.h"
#include "gtest/gtest.h"

namespace {

using crawler::MetricsAddress;
using crawler::ParseMetricsAddress;

TEST(MetricsAddress, APortAloneListensOnLoopbackOnly) {
  EXPECT_EQ(*ParseMetricsAddress("9100"), (MetricsAddress{"127.0.0.1", 9100}));
  EXPECT_EQ(*ParseMetricsAddress(":9100"), (MetricsAddress{"127.0.0.1", 9100}));
  EXPECT_EQ(*ParseMetricsAddress("0"), (MetricsAddress{"127.0.0.1", 0}));
}

TEST(MetricsAddress, ATypedHostIsBoundExactly) {
  EXPECT_EQ(*ParseMetricsAddress("0.0.0.0:9100"), (MetricsAddress{"0.0.0.0", 9100}));
  EXPECT_EQ(*ParseMetricsAddress("localhost:80"), (MetricsAddress{"localhost", 80}));
  EXPECT_EQ(*ParseMetricsAddress("[::1]:9100"), (MetricsAddress{"::1", 9100}));
  EXPECT_EQ(*ParseMetricsAddress("[::]:1"), (MetricsAddress{"::", 1}));
}

TEST(MetricsAddress, BadTextIsRefusedQuotingIt) {
  for (const char* bad : {"", "x", "9100x", "65536", "-1", "host:", "::1:9100", "[::1]9100", "[::1",
                          "1.2.3.4:99999"}) {
    auto parsed = ParseMetricsAddress(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_NE(std::string(parsed.status().message()).find(std::string("'") + bad + "'"),
              std::string::npos)
        << parsed.status();
  }
}

TEST(MetricsAddress, LoopbackHosts) {
  EXPECT_TRUE(crawler::IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(crawler::IsLoopbackHost("127.3.2.1"));
  EXPECT_TRUE(crawler::IsLoopbackHost("::1"));
  EXPECT_TRUE(crawler::IsLoopbackHost("localhost"));
  EXPECT_FALSE(crawler::IsLoopbackHost("0.0.0.0"));
  EXPECT_FALSE(crawler::IsLoopbackHost("::"));
  EXPECT_FALSE(crawler::IsLoopbackHost("10.0.0.1"));
}

}  // namespace
