// robots.txt in the running crawl (RFC 9309 and our politeness rules), end to end against
// test sites on 127.0.0.1: what the server was asked for is the truth.
// Sources of truth: "RFC" tests check what RFC 9309 requires (2.3.1 fetch
// outcomes, 2.5 the 500 KiB limit); the others check our own choices (error
// names, give-up after --retries, sitemaps at depth 1).

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "e2e/e2e_util.h"
#include "gtest/gtest.h"
#include "support/gzip.h"
#include "testsite/test_site.h"

namespace {

using e2e::PathOf;

std::unique_ptr<testsite::TestSite> StartRobotsSite(int pages, const std::string& robots_txt = "") {
  testsite::SiteOptions options;
  options.pages = pages;
  options.links_per_page = 6;
  options.robots_txt = robots_txt;
  auto site = testsite::TestSite::Start(options);
  EXPECT_TRUE(site.ok()) << site.status();
  return site.ok() ? std::move(*site) : nullptr;
}

crawler::CrawlOptions RobotsOptions(const std::string& name) {
  crawler::CrawlOptions options = e2e::FastOptions(name);
  options.robots = true;
  options.timeout_s = 2;
  options.robots_retry_s = 1;
  options.retries = 1;  // two unreachable robots.txt answers give the host up
  return options;
}

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

std::string ErrorOf(const nlohmann::json& page) {
  return page["error"].is_null() ? "" : page["error"].get<std::string>();
}

// Disallow: /p/1 blocks /p/1.html, /p/10.html ... (prefix match).
TEST(RobotsCrawl, DisallowedPagesAreNeverRequestedAndRecorded) {
  auto a = StartRobotsSite(60, "User-agent: *\nDisallow: /p/1\n");
  auto b = StartRobotsSite(30, "User-agent: crawl\nDisallow: /p/2\n\nUser-agent: *\nDisallow: /\n");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  const crawler::CrawlOptions options = RobotsOptions("robots-disallow");
  auto summary = e2e::Crawl(options, {a->RootUrl(), b->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();

  EXPECT_EQ(a->RequestCount("/robots.txt"), 1u);  // once per authority
  EXPECT_EQ(b->RequestCount("/robots.txt"), 1u);
  for (const auto& [path, count] : a->RequestCounts()) {
    EXPECT_FALSE(StartsWith(path, "/p/1")) << path << " requested " << count;
  }
  for (const auto& [path, count] : b->RequestCounts()) {
    EXPECT_FALSE(StartsWith(path, "/p/2")) << path << " requested " << count;
  }
  int blocked = 0;
  int fetched = 0;
  for (const auto& page : e2e::ReadPages(options.out_dir)) {
    const std::string url = page["url"];
    const std::string path = PathOf(url);
    const bool on_a = StartsWith(url, a->BaseUrl());
    const auto& site = on_a ? a : b;
    const bool disallowed = StartsWith(path, on_a ? "/p/1" : "/p/2");
    EXPECT_NE(path, "/robots.txt");  // robots.txt is not a page
    if (disallowed) {
      ++blocked;
      EXPECT_EQ(ErrorOf(page), "robots") << url;
      EXPECT_TRUE(page["status"].is_null()) << page.dump();  // no response arrived
      EXPECT_GE(page["depth"].get<int>(), 1);
      EXPECT_FALSE(page["parent"].is_null());
      EXPECT_EQ(site->RequestCount(path), 0u);
    } else {
      ++fetched;
      EXPECT_EQ(ErrorOf(page), "") << url;
      EXPECT_EQ(page["status"], 200) << url;
      EXPECT_EQ(site->RequestCount(path), 1u) << url;
    }
  }
  EXPECT_GT(blocked, 5);
  EXPECT_GT(fetched, 30);
  const auto json = e2e::ReadSummary(options.out_dir);
  EXPECT_EQ(json["robots_fetches"], 2);
  EXPECT_EQ(json["robots_blocked"], blocked);
  EXPECT_EQ(json["errors_by_kind"]["robots"], blocked);
  EXPECT_EQ(json["stop_reason"], "drained");
}

TEST(RobotsCrawl, Rfc404MeansEverythingAllowed) {
  auto site = StartRobotsSite(50);  // no robots_txt: the site answers 404
  ASSERT_NE(site, nullptr);
  const crawler::CrawlOptions options = RobotsOptions("robots-404");
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(site->RequestCount("/robots.txt"), 1u);
  for (const std::string& url : site->PageUrls()) EXPECT_EQ(site->RequestCount(url), 1u) << url;
  EXPECT_EQ(e2e::ReadPages(options.out_dir).size(), site->PageUrls().size());
  EXPECT_EQ(e2e::ReadSummary(options.out_dir)["robots_blocked"], 0);
}

TEST(RobotsCrawl, Rfc5xxFetchesNothingFromTheHostAndTheCrawlEnds) {
  auto down = StartRobotsSite(20);
  auto up = StartRobotsSite(20);
  ASSERT_NE(down, nullptr);
  ASSERT_NE(up, nullptr);
  down->Handle("/robots.txt", [](const httplib::Request&, httplib::Response& res) {
    res.status = 503;
    res.set_content("busy", "text/plain");
  });
  const crawler::CrawlOptions options = RobotsOptions("robots-5xx");
  const auto started = std::chrono::steady_clock::now();
  auto summary = e2e::Crawl(options, {down->RootUrl(), up->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  // Tried, backed off robots_retry (1 s), tried again, gave up: --retries 1.
  EXPECT_EQ(down->RequestCount("/robots.txt"), 2u);
  EXPECT_EQ(down->TotalRequests(), 2u);  // not one page
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(900));
  for (const std::string& url : up->PageUrls()) EXPECT_EQ(up->RequestCount(url), 1u) << url;
  bool seed_recorded = false;
  for (const auto& page : e2e::ReadPages(options.out_dir)) {
    if (page["url"] != down->RootUrl()) continue;
    seed_recorded = true;
    EXPECT_TRUE(StartsWith(ErrorOf(page), "robots_unreachable")) << ErrorOf(page);
  }
  EXPECT_TRUE(seed_recorded);
  EXPECT_EQ(e2e::ReadSummary(options.out_dir)["stop_reason"], "drained");
}

TEST(RobotsCrawl, RfcRedirectIsFollowedToTheRules) {
  auto site = StartRobotsSite(40);
  ASSERT_NE(site, nullptr);
  const std::string rules_url = site->BaseUrl() + "/rules/robots.txt";
  site->Handle("/robots.txt", [](const httplib::Request&, httplib::Response& res) {
    res.status = 301;
    res.set_header("Location", "/moved/robots.txt");
  });
  site->Handle("/moved/robots.txt", [rules_url](const httplib::Request&, httplib::Response& res) {
    res.status = 302;
    res.set_header("Location", rules_url);  // absolute, second hop
  });
  site->Handle("/rules/robots.txt", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("User-agent: *\nDisallow: /p/2\n", "text/plain");
  });
  const crawler::CrawlOptions options = RobotsOptions("robots-redirect");
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(site->RequestCount("/robots.txt"), 1u);
  EXPECT_EQ(site->RequestCount("/moved/robots.txt"), 1u);
  EXPECT_EQ(site->RequestCount("/rules/robots.txt"), 1u);
  EXPECT_EQ(site->RequestCountWithPrefix("/p/2"), 0u);
  EXPECT_GT(site->RequestCountWithPrefix("/p/3"), 0u);
  EXPECT_EQ(e2e::ReadSummary(options.out_dir)["robots_fetches"], 3);
}

TEST(RobotsCrawl, RfcTimeoutCountsAsUnreachable) {
  auto site = StartRobotsSite(10);
  ASSERT_NE(site, nullptr);
  site->Handle("/robots.txt", [](const httplib::Request&, httplib::Response& res) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // beyond --timeout 1s
    res.set_content("User-agent: *\nAllow: /\n", "text/plain");
  });
  crawler::CrawlOptions options = RobotsOptions("robots-timeout");
  options.timeout_s = 1;
  options.retries = 0;  // one unreachable answer gives the host up
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(site->RequestCount("/robots.txt"), 1u);
  EXPECT_EQ(site->TotalRequests(), 1u);
  const auto pages = e2e::ReadPages(options.out_dir);
  ASSERT_EQ(pages.size(), 1u);
  EXPECT_NE(ErrorOf(pages[0]).find("robots_unreachable: robots.txt timeout"), std::string::npos)
      << ErrorOf(pages[0]);
}

TEST(RobotsCrawl, RfcOnlyTheFirst500KiBOfAHugeRobotsTxtCount) {
  std::string robots = "User-agent: *\nDisallow: /p/2\n";
  while (robots.size() < 600 * 1024) robots += "# padding padding padding padding padding\n";
  robots += "Disallow: /p/3\n";  // beyond 500 KiB: ignored
  auto site = StartRobotsSite(60, robots);
  ASSERT_NE(site, nullptr);
  const crawler::CrawlOptions options = RobotsOptions("robots-huge");
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(site->RequestCount("/robots.txt"), 1u);
  EXPECT_EQ(site->RequestCountWithPrefix("/p/2"), 0u);
  EXPECT_GT(site->RequestCountWithPrefix("/p/3"), 0u);
  EXPECT_EQ(e2e::ReadSummary(options.out_dir)["stop_reason"], "drained");
}

TEST(RobotsCrawl, RobotsOffFetchesDisallowedPagesAndWarns) {
  auto site = StartRobotsSite(30, "User-agent: *\nDisallow: /\n");
  ASSERT_NE(site, nullptr);
  const std::string dir = e2e::FreshDir("robots-off");
  const e2e::CommandResult r =
      e2e::RunProgram("crawl", {"--seeds", e2e::WriteFile(dir, "seeds.txt", site->RootUrl() + "\n"),
                                "--out", dir + "/out", "--spill-dir", dir + "/spill", "--delay",
                                "0", "--robots", "off", "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("robots.txt ignored: only crawl sites you own"), std::string::npos) << r.err;
  EXPECT_EQ(site->RequestCount("/robots.txt"), 0u);
  for (const std::string& url : site->PageUrls()) EXPECT_EQ(site->RequestCount(url), 1u) << url;
}

// A site whose robots.txt names a sitemap index -> a plain sitemap and a
// gzip one (served as opaque bytes), listing pages no page links to.
void AddSitemaps(testsite::TestSite* site) {
  const std::string base = site->BaseUrl();
  site->Handle("/robots.txt", [base](const httplib::Request&, httplib::Response& res) {
    res.set_content("User-agent: *\nDisallow: /hidden/blocked\nSitemap: " + base + "/index.xml\n",
                    "text/plain");
  });
  site->Handle("/index.xml", [base](const httplib::Request&, httplib::Response& res) {
    res.set_content("<?xml version=\"1.0\"?><sitemapindex><sitemap><loc>" + base +
                        "/sm1.xml</loc></sitemap><sitemap><loc>" + base +
                        "/sm2.xml.gz</loc></sitemap></sitemapindex>",
                    "application/xml");
  });
  site->Handle("/sm1.xml", [base](const httplib::Request&, httplib::Response& res) {
    res.set_content("<urlset><url><loc>" + base + "/hidden/1.html</loc></url><url><loc>" + base +
                        "/hidden/blocked.html</loc></url><url><loc>http://off-scope.invalid/x"
                        "</loc></url></urlset>",
                    "application/xml");
  });
  const std::string gz =
      test_support::Gzip("<urlset><url><loc>" + base + "/hidden/2.html</loc></url></urlset>");
  site->Handle("/sm2.xml.gz", [gz](const httplib::Request&, httplib::Response& res) {
    res.set_content(gz, "application/octet-stream");
  });
  for (const std::string page : {"/hidden/1.html", "/hidden/2.html"}) {
    site->Handle(page, [](const httplib::Request&, httplib::Response& res) {
      res.set_content("<html><body>only in the sitemap</body></html>", "text/html");
    });
  }
}

TEST(RobotsCrawl, SitemapPagesAreCrawledPlainAndGzip) {
  auto site = StartRobotsSite(10);
  ASSERT_NE(site, nullptr);
  AddSitemaps(site.get());
  crawler::CrawlOptions options = RobotsOptions("robots-sitemaps");
  options.sitemaps = true;
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(site->RequestCount("/index.xml"), 1u);
  EXPECT_EQ(site->RequestCount("/sm1.xml"), 1u);
  EXPECT_EQ(site->RequestCount("/sm2.xml.gz"), 1u);
  EXPECT_EQ(site->RequestCount("/hidden/1.html"), 1u);
  EXPECT_EQ(site->RequestCount("/hidden/2.html"), 1u);
  EXPECT_EQ(site->RequestCount("/hidden/blocked.html"), 0u);  // still robots-checked
  for (const std::string& url : site->PageUrls()) EXPECT_EQ(site->RequestCount(url), 1u) << url;
  int hidden = 0;
  for (const auto& page : e2e::ReadPages(options.out_dir)) {
    const std::string path = PathOf(page["url"]);
    EXPECT_FALSE(StartsWith(path, "/sm") || path == "/index.xml") << "sitemaps are not pages";
    if (path == "/hidden/1.html" || path == "/hidden/2.html") {
      ++hidden;
      EXPECT_EQ(page["depth"], 1);
      EXPECT_TRUE(StartsWith(page["parent"].get<std::string>(), site->BaseUrl() + "/sm"));
    }
  }
  EXPECT_EQ(hidden, 2);
  const auto json = e2e::ReadSummary(options.out_dir);
  EXPECT_EQ(json["sitemap_fetches"], 3);
  EXPECT_EQ(json["sitemap_urls"], 4);
}

TEST(RobotsCrawl, SitemapsAreIgnoredWithoutTheFlag) {
  auto site = StartRobotsSite(10);
  ASSERT_NE(site, nullptr);
  AddSitemaps(site.get());
  const crawler::CrawlOptions options = RobotsOptions("robots-no-sitemaps");
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(site->RequestCount("/index.xml"), 0u);
  EXPECT_EQ(site->RequestCountWithPrefix("/hidden/"), 0u);
  EXPECT_EQ(site->RequestCount("/robots.txt"), 1u);
}

}  // namespace
