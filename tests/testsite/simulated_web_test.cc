// The simulated web's server (testsite/simulated_web.h): a crawl-like client
// reaches two hosts at two distinct 127.x addresses on one port, and the
// listener serves loopback addresses only.
#include "testsite/simulated_web.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <regex>
#include <string>
#include <vector>

namespace testsite {
namespace {

using ::testing::HasSubstr;

WebOptions SmallWeb() {
  return {.hosts = 1000, .largest_host_pages = 10'000, .threads = 8, .keep_alive_timeout_s = 1};
}

// True when a TCP connection to address:port is established within 500 ms.
bool Connects(const std::string& address, int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, address.c_str(), &target.sin_addr);
  bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&target), sizeof(target)) == 0;
  if (!connected && errno == EINPROGRESS) {
    pollfd ready{fd, POLLOUT, 0};
    int error = 0;
    socklen_t length = sizeof(error);
    connected = ::poll(&ready, 1, 500) == 1 &&
                ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0;
  }
  ::close(fd);
  return connected;
}

// The machine's IPv4 addresses outside 127.0.0.0/8.
std::vector<std::string> NonLoopbackAddresses() {
  std::vector<std::string> addresses;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return addresses;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    const in_addr ip = reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr;
    if ((ntohl(ip.s_addr) >> 24) == 127) continue;
    char text[INET_ADDRSTRLEN];
    ::inet_ntop(AF_INET, &ip, text, sizeof(text));
    addresses.emplace_back(text);
  }
  ::freeifaddrs(list);
  return addresses;
}

TEST(SimulatedWebTest, ACrawlLikeClientFetchesFromTwoDistinctLoopbackHosts) {
  auto web = SimulatedWeb::Start(SmallWeb());
  ASSERT_TRUE(web.ok()) << web.status();
  const int port = (*web)->port();
  httplib::Client first("127.1.0.0", port);
  const httplib::Result root = first.Get("/");
  ASSERT_TRUE(root);
  ASSERT_EQ(root->status, 200);
  EXPECT_THAT(root->body, HasSubstr("<title>127.1.0.0 page 0</title>"));
  // Follow the first link to another host, as a crawler would.
  const std::regex off_host("href=\"http://(127\\.[0-9.]+):([0-9]+)(/[^\"]*)\"");
  std::smatch link;
  ASSERT_TRUE(std::regex_search(root->body, link, off_host)) << root->body;
  ASSERT_NE(link[1].str(), "127.1.0.0");
  EXPECT_EQ(link[2].str(), std::to_string(port));
  httplib::Client second(link[1].str(), port);
  const httplib::Result page = second.Get(link[3].str());
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_THAT(page->body, HasSubstr("<title>" + link[1].str() + " page "));
  EXPECT_EQ((*web)->DistinctHostsRequested(), 2u);
  // The root's own host and the other hosts its 20 off-host links name, plus
  // those of the second page.
  EXPECT_GE((*web)->DistinctHostsLinked(), 3u);
  EXPECT_LE((*web)->DistinctHostsLinked(), 42u);
  EXPECT_EQ((*web)->PagesServed(), 2u);
  EXPECT_TRUE((*web)->FirstRequestTime().has_value());
}

TEST(SimulatedWebTest, RobotsTxtOnEveryOtherHostAndUnknownPathsAre404) {
  auto web = SimulatedWeb::Start(SmallWeb());
  ASSERT_TRUE(web.ok()) << web.status();
  const int port = (*web)->port();
  const httplib::Result robots = httplib::Client("127.1.0.0", port).Get("/robots.txt");
  ASSERT_TRUE(robots);
  EXPECT_EQ(robots->status, 200);
  EXPECT_THAT(robots->body, HasSubstr("Allow: /"));
  const httplib::Result no_robots = httplib::Client("127.1.0.1", port).Get("/robots.txt");
  ASSERT_TRUE(no_robots);
  EXPECT_EQ(no_robots->status, 404);
  const uint64_t last = (*web)->graph().HostPages(5) - 1;
  httplib::Client host5("127.1.0.5", port);
  EXPECT_EQ(host5.Get("/p/" + std::to_string(last) + ".html")->status, 200);
  EXPECT_EQ(host5.Get("/p/" + std::to_string(last + 1) + ".html")->status, 404);
  EXPECT_EQ(host5.Get("/p/0.html")->status, 404);  // page 0 is "/" only
  // 127.0.0.1 and host 1000 are loopback but not in the web.
  EXPECT_EQ(httplib::Client("127.0.0.1", port).Get("/")->status, 404);
  EXPECT_EQ(httplib::Client("127.1.3.232", port).Get("/")->status, 404);
  EXPECT_EQ((*web)->RobotsRequests(), 2u);
  EXPECT_EQ((*web)->NotFound(), 4u);
}

TEST(SimulatedWebTest, ListensOnLoopbackAddressesOnly) {
  auto web = SimulatedWeb::Start(SmallWeb());
  ASSERT_TRUE(web.ok()) << web.status();
  const int port = (*web)->port();
  for (const char* address : {"127.0.0.1", "127.1.0.0", "127.1.3.231", "127.200.9.9"}) {
    EXPECT_TRUE(Connects(address, port)) << address;
  }
  // The machine's own external addresses reach the socket over "lo" too; the
  // filter keeps them out.
  for (const std::string& address : NonLoopbackAddresses()) {
    EXPECT_FALSE(Connects(address, port)) << address;
  }
}

}  // namespace
}  // namespace testsite
