// The crawler's order through the binary (docs/crawler.md, "Order"): with no
// rule a crawl stays breadth first (a FIFO: the depth of the pages fetched
// never goes down), --prefer fetches a section first within a --max-pages
// budget, --depth-priority -1 goes deep, and --prefer works the same with
// a shared frontier in Redis (its priority lanes, docs/redis.md).
#include <algorithm>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "e2e/binary_crawl.h"
#include "e2e/e2e_util.h"
#include "gtest/gtest.h"
#include "redis_fixture/redis_cluster.h"
#include "redis_fixture/redis_server.h"
#include "testsite/test_site.h"

namespace {

using e2e::BinaryCrawl;
using e2e::PathOf;
using e2e::RunCrawlBinary;

std::unique_ptr<testsite::TestSite> StartSite(uint64_t pages) {
  testsite::SiteOptions options;
  options.pages = pages;
  options.links_per_page = 10;
  auto site = testsite::TestSite::Start(options);
  EXPECT_TRUE(site.ok()) << site.status();
  return site.ok() ? std::move(*site) : nullptr;
}

// One fetch at a time and one parser, so links are pushed in the order their
// pages were fetched. With two parsers a slow parse of a page at depth d can
// finish after the parse of a later page at depth d+1, whose depth d+2 links
// then queue ahead of the first page's depth d+1 links: a FIFO that still
// fetches a shallower page after a deeper one.
std::vector<std::string> Serial(std::vector<std::string> extra) {
  std::vector<std::string> flags = {"--connections", "1", "--per-host", "1", "--threads", "1"};
  flags.insert(flags.end(), extra.begin(), extra.end());
  return flags;
}

// The depths of the pages in the order the server saw their requests since
// `site`'s counts were last reset (one connection: one request at a time).
// Not pages.jsonl's order: records are appended as parsers finish, and two
// neighbours may swap.
std::vector<int> DepthsInFetchOrder(const BinaryCrawl& crawl, const testsite::TestSite& site) {
  std::vector<int> depths;
  for (const testsite::RequestRecord& request : site.RequestLog()) {
    const auto record = crawl.by_path.find(request.path);
    if (record != crawl.by_path.end()) depths.push_back(record->second["depth"].get<int>());
  }
  return depths;
}

bool NonDecreasing(const std::vector<int>& values) {
  for (size_t i = 1; i < values.size(); ++i) {
    if (values[i] < values[i - 1]) return false;
  }
  return true;
}

// The section --prefer picks below: pages whose number ends in 7 (a tenth).
const std::regex kSection("^/p/[0-9]*7\\.html$");

int SectionPages(const BinaryCrawl& crawl) {
  int count = 0;
  for (const auto& page : crawl.pages) {
    count += std::regex_match(PathOf(page["url"].get<std::string>()), kSection);
  }
  return count;
}

TEST(Priority, NoRuleKeepsBreadthFirstOrder) {
  auto site = StartSite(2000);
  ASSERT_NE(site, nullptr);
  // No rule, and a rule that matches nothing (every URL at priority 0).
  for (const std::string name : {"priority-bfs", "priority-bfs-noop"}) {
    std::vector<std::string> extra = Serial({"--max-pages", "400"});
    if (name == "priority-bfs-noop") {
      extra.insert(extra.end(), {"--prefer", "^nothing-matches$"});
    }
    site->ResetCounts();
    BinaryCrawl crawl = RunCrawlBinary(name, {site->RootUrl()}, extra);
    ASSERT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
    ASSERT_EQ(crawl.pages.size(), 400u);
    const std::vector<int> depths = DepthsInFetchOrder(crawl, *site);
    EXPECT_EQ(depths.size(), 400u) << name;
    EXPECT_TRUE(NonDecreasing(depths)) << name;
    EXPECT_GE(depths.back(), 2) << name;  // the test crossed depths
  }
}

// --prefer fetches the section first within a page budget: on the in-memory
// Sieve (`base` empty) or a shared frontier at `base` ("redis://.../" or
// "redis-cluster://.../").
void ExpectPreferFetchesTheSectionFirst(const std::string& base, const std::string& name) {
  auto site = StartSite(2000);
  ASSERT_NE(site, nullptr);
  auto flags = [&](std::vector<std::string> extra, const std::string& frontier) {
    if (!base.empty()) extra.insert(extra.end(), {"--frontier", base + frontier});
    return Serial(std::move(extra));
  };
  BinaryCrawl plain =
      RunCrawlBinary(name + "-plain", {site->RootUrl()}, flags({"--max-pages", "300"}, "plain"));
  BinaryCrawl preferred =
      RunCrawlBinary(name + "-prefer", {site->RootUrl()},
                     flags({"--max-pages", "300", "--prefer", "7\\.html$"}, "prefer"));
  ASSERT_EQ(plain.run.exit_code, 0) << plain.run.err;
  ASSERT_EQ(preferred.run.exit_code, 0) << preferred.run.err;
  ASSERT_EQ(plain.pages.size(), 300u);
  ASSERT_EQ(preferred.pages.size(), 300u);
  const int plain_section = SectionPages(plain);
  const int preferred_section = SectionPages(preferred);
  // Breadth first spends about a tenth of the budget on the section; with
  // --prefer every section page known when a fetch starts goes first.
  EXPECT_LT(plain_section, 60) << name;
  EXPECT_GE(preferred_section, 3 * plain_section) << name;
  EXPECT_GE(preferred_section, 120) << name;
  // The preferred pages come early: the first half of the crawl holds more
  // of them than the second.
  int first_half = 0;
  for (size_t i = 0; i < preferred.pages.size() / 2; ++i) {
    first_half += std::regex_match(PathOf(preferred.pages[i]["url"].get<std::string>()), kSection);
  }
  EXPECT_GT(first_half, preferred_section / 2) << name;
}

TEST(Priority, PreferFetchesTheSectionFirstWithinThePageBudget) {
  ExpectPreferFetchesTheSectionFirst("", "priority");
}

TEST(Priority, NegativeDepthPriorityGoesDeep) {
  auto site = StartSite(2000);
  ASSERT_NE(site, nullptr);
  BinaryCrawl breadth =
      RunCrawlBinary("priority-breadth", {site->RootUrl()}, Serial({"--max-pages", "60"}));
  ASSERT_EQ(breadth.run.exit_code, 0) << breadth.run.err;
  const std::vector<int> breadth_depths = DepthsInFetchOrder(breadth, *site);
  site->ResetCounts();
  BinaryCrawl deep = RunCrawlBinary("priority-deep", {site->RootUrl()},
                                    Serial({"--max-pages", "60", "--depth-priority", "-1"}));
  ASSERT_EQ(deep.run.exit_code, 0) << deep.run.err;
  const std::vector<int> deep_depths = DepthsInFetchOrder(deep, *site);
  ASSERT_FALSE(breadth_depths.empty());
  ASSERT_FALSE(deep_depths.empty());
  EXPECT_LE(breadth_depths.back(), 2);
  // Breadth first stays within two hops in 60 pages; deep first follows the
  // newest, deepest links.
  EXPECT_GE(*std::max_element(deep_depths.begin(), deep_depths.end()), 5);
}

// A sitemap listing ten pages with <priority> 0.0 .. 0.9 in a shuffled
// order: with --sitemap-priority they are fetched highest first; without it,
// in the sitemap's order.
TEST(Priority, SitemapPriorityOrdersTheSitemapsPages) {
  auto site = StartSite(10);
  ASSERT_NE(site, nullptr);
  const std::vector<int> listed = {3, 7, 0, 9, 5, 1, 8, 2, 6, 4};  // tenths
  std::string xml = "<urlset>";
  for (int tenth : listed) {
    xml += "<url><loc>" + site->BaseUrl() + "/ranked/" + std::to_string(tenth) +
           ".html</loc><priority>0." + std::to_string(tenth) + "</priority></url>";
  }
  xml += "</urlset>";
  site->Handle("/sm.xml", [xml](const httplib::Request&, httplib::Response& res) {
    res.set_content(xml, "application/xml");
  });
  for (int tenth : listed) {
    site->Handle("/ranked/" + std::to_string(tenth) + ".html",
                 [](const httplib::Request&, httplib::Response& res) {
                   res.set_content("<html><body>ranked</body></html>", "text/html");
                 });
  }
  for (const bool weighed : {true, false}) {
    site->ResetCounts();
    std::vector<std::string> extra = Serial({"--sitemap", site->BaseUrl() + "/sm.xml"});
    if (weighed) extra.insert(extra.end(), {"--sitemap-priority", "10"});
    BinaryCrawl crawl = RunCrawlBinary(weighed ? "priority-sitemap" : "priority-sitemap-off",
                                       {site->RootUrl()}, extra);
    ASSERT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
    // The order the server saw (one connection: one request at a time);
    // pages.jsonl is in the order parsers finished, which may swap neighbours.
    std::vector<int> fetched;
    for (const testsite::RequestRecord& request : site->RequestLog()) {
      if (request.path.rfind("/ranked/", 0) == 0) fetched.push_back(request.path[8] - '0');
    }
    std::vector<int> expected = listed;
    if (weighed) std::sort(expected.begin(), expected.end(), std::greater<int>());
    EXPECT_EQ(fetched, expected) << (weighed ? "--sitemap-priority 10" : "no flag");
  }
}

TEST(Priority, PreferWorksWithARedisFrontier) {
  sieve_test::RedisServer redis;
  ASSERT_TRUE(redis.Start().ok());
  ExpectPreferFetchesTheSectionFirst(absl::StrCat("redis://127.0.0.1:", redis.port(), "/"),
                                     "priority-redis");
}

TEST(Priority, PreferWorksWithARedisClusterFrontier) {
  sieve_test::RedisCluster cluster(3);
  ASSERT_TRUE(cluster.Start().ok());
  // FrontierUrl("") ends in "/": the frontier names follow.
  ExpectPreferFetchesTheSectionFirst(cluster.FrontierUrl(""), "priority-cluster");
}

}  // namespace
