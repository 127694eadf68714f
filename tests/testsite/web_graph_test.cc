// The simulated web's graph (testsite/web_graph.h): heavy-tailed host sizes,
// the on-host share of links, in-links weighted by host size, reachability of
// every page from its host's root, and determinism. Our own choices, pinned
// with fixed seeds (no run-to-run variation).
#include "testsite/web_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <random>
#include <vector>

namespace testsite {
namespace {

TEST(WebGraphTest, HostSizesAreHeavyTailedAtTheDefaults) {
  const WebGraph graph(WebOptions{});
  ASSERT_EQ(graph.hosts(), 1'000'000u);
  EXPECT_EQ(graph.HostPages(0), 100'000'000u);
  uint64_t millionaires = 0;
  uint64_t handful = 0;  // at most 20 pages
  for (uint64_t host = 0; host < graph.hosts(); ++host) {
    millionaires += graph.HostPages(host) >= 1'000'000;
    handful += graph.HostPages(host) <= 20;
  }
  // A few hosts with millions of pages, most with a handful.
  EXPECT_GE(millionaires, 5u);
  EXPECT_LE(millionaires, 50u);
  EXPECT_GT(handful, graph.hosts() / 2);
  EXPECT_EQ(graph.HostPages(graph.hosts() / 2), 14u);  // the median host
  // ~5.3e8 pages in all, over half of them on the largest 1% of the hosts.
  EXPECT_GT(graph.TotalPages(), 500'000'000u);
  EXPECT_LT(graph.TotalPages(), 560'000'000u);
  uint64_t top = 0;
  for (uint64_t host = 0; host < graph.hosts() / 100; ++host) top += graph.HostPages(host);
  EXPECT_GT(top, graph.TotalPages() / 2);
}

TEST(WebGraphTest, MinHostPagesIsAFloor) {
  const WebGraph graph({.hosts = 1000, .largest_host_pages = 1000, .min_host_pages = 7});
  EXPECT_EQ(graph.HostPages(0), 1000u);
  EXPECT_EQ(graph.HostPages(999), 7u);
}

TEST(WebGraphTest, EightyPercentOfTheLinksStayOnTheirHost) {
  const WebGraph graph({.hosts = 100'000, .largest_host_pages = 10'000'000});
  std::mt19937_64 random(7);
  uint64_t on_host = 0;
  uint64_t links = 0;
  for (int i = 0; i < 2000; ++i) {
    const uint64_t host = random() % graph.hosts();
    const uint64_t page = random() % graph.HostPages(host);
    const std::vector<WebLink> page_links = graph.Links(host, page);
    ASSERT_EQ(page_links.size(), 100u);
    const auto own = std::count_if(page_links.begin(), page_links.end(),
                                   [&](const WebLink& l) { return l.host == host; });
    EXPECT_EQ(own, 80) << "host " << host << " page " << page;
    on_host += static_cast<uint64_t>(own);
    links += page_links.size();
    for (const WebLink& link : page_links) {
      ASSERT_LT(link.host, graph.hosts());
      ASSERT_LT(link.page, graph.HostPages(link.host));
    }
  }
  EXPECT_EQ(on_host * 10, links * 8);
}

TEST(WebGraphTest, OffHostLinksGoToHostsInProportionToTheirSize) {
  const WebGraph graph({.hosts = 100'000, .largest_host_pages = 10'000'000});
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> unit(0, 1);
  constexpr int kDraws = 1'000'000;
  std::vector<uint64_t> hits(graph.hosts());
  for (int i = 0; i < kDraws; ++i) ++hits[graph.HostForUniform(unit(random))];
  const auto expected = [&](uint64_t first, uint64_t last) {
    double pages = 0;
    for (uint64_t h = first; h < last; ++h) pages += static_cast<double>(graph.HostPages(h));
    return kDraws * pages / static_cast<double>(graph.TotalPages());
  };
  const auto observed = [&](uint64_t first, uint64_t last) {
    double n = 0;
    for (uint64_t h = first; h < last; ++h) n += static_cast<double>(hits[h]);
    return n;
  };
  // Host 0 (~18% of the pages), hosts 1-9, the head table's end and the tail
  // beyond it: each within 2% of its size share (binomial sd is < 0.5%).
  for (auto [first, last] :
       {std::pair<uint64_t, uint64_t>{0, 1}, {1, 10}, {10, 4096}, {4096, 100'000}}) {
    EXPECT_NEAR(observed(first, last), expected(first, last), 0.02 * expected(first, last))
        << "hosts [" << first << ", " << last << ")";
  }
}

TEST(WebGraphTest, EveryPageOfAHostIsReachableFromItsRoot) {
  const WebGraph graph({.hosts = 1000, .largest_host_pages = 20'000});
  for (uint64_t host : {0, 3, 999}) {
    const uint64_t size = graph.HostPages(host);
    std::vector<bool> seen(size);
    std::deque<uint64_t> queue{0};
    seen[0] = true;
    while (!queue.empty()) {
      const uint64_t page = queue.front();
      queue.pop_front();
      for (const WebLink& link : graph.Links(host, page)) {
        if (link.host == host && !seen[link.page]) {
          seen[link.page] = true;
          queue.push_back(link.page);
        }
      }
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), true), static_cast<int64_t>(size))
        << "host " << host;
  }
}

TEST(WebGraphTest, SameSeedSameWebOtherSeedOtherLinks) {
  const WebOptions options{.hosts = 10'000, .largest_host_pages = 1'000'000};
  WebOptions reseeded = options;
  reseeded.seed = 2;
  const WebGraph a(options);
  const WebGraph b(options);
  const WebGraph c(reseeded);
  int differ = 0;
  for (uint64_t host : {0, 1, 77, 9999}) {
    for (uint64_t page = 0; page < std::min<uint64_t>(50, a.HostPages(host)); ++page) {
      ASSERT_EQ(a.Links(host, page), b.Links(host, page));
      differ += a.Links(host, page) != c.Links(host, page);
    }
  }
  EXPECT_GT(differ, 0);
}

TEST(WebGraphTest, AddressesMapToHostsAndBack) {
  const WebGraph graph({.hosts = 70'000});
  EXPECT_EQ(WebGraph::HostAddress(0), "127.1.0.0");
  EXPECT_EQ(WebGraph::HostAddress(65'537), "127.2.0.1");
  EXPECT_EQ(graph.HostOfAddress("127.2.0.1:8080"), 65'537u);
  EXPECT_EQ(graph.HostOfAddress("127.1.0.0"), 0u);
  EXPECT_EQ(graph.HostOfAddress("127.0.0.1"), std::nullopt);
  EXPECT_EQ(graph.HostOfAddress("127.2.17.113"), std::nullopt);  // host 70,001
  EXPECT_EQ(graph.HostOfAddress("localhost:80"), std::nullopt);
}

TEST(WebGraphTest, OptionsAreValidated) {
  EXPECT_TRUE(ValidateWebOptions(WebOptions{}).ok());
  EXPECT_FALSE(ValidateWebOptions({.hosts = 1}).ok());
  EXPECT_FALSE(ValidateWebOptions({.hosts = kMaxWebHosts + 1}).ok());
  EXPECT_FALSE(ValidateWebOptions({.on_host_share = 1.5}).ok());
  EXPECT_FALSE(ValidateWebOptions({.links_per_page = 0}).ok());
  EXPECT_FALSE(ValidateWebOptions({.robots_every = 0}).ok());
}

}  // namespace
}  // namespace testsite
