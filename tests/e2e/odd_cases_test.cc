// End to end, in process: the site's odd cases. Redirects go through the
// Sieve (each target fetched once), nofollow and <base href> are honored,
// non-HTML bodies are not parsed, the body cap and the timeouts hold.
#include <string>
#include <vector>

#include "e2e/e2e_util.h"
#include "gtest/gtest.h"
#include "testsite/test_site.h"

namespace {

using e2e::PathOf;

std::unique_ptr<testsite::TestSite> StartOddSite(testsite::SiteOptions options) {
  auto site = testsite::TestSite::Start(options);
  EXPECT_TRUE(site.ok()) << site.status();
  return site.ok() ? std::move(*site) : nullptr;
}

void ExpectEveryPageOnce(const testsite::TestSite& site) {
  for (const std::string& url : site.PageUrls()) {
    EXPECT_EQ(site.RequestCount(PathOf(url)), 1u) << url;
  }
}

TEST(OddCases, RedirectsAreFollowedAndDeduplicated) {
  testsite::SiteOptions site_options;
  site_options.redirects = true;
  auto site = StartOddSite(site_options);
  ASSERT_NE(site, nullptr);
  crawler::CrawlOptions options = e2e::FastOptions("redirects");
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  ExpectEveryPageOnce(*site);
  int redirects = 0;
  for (const auto& [path, count] : site->RequestCounts()) {
    EXPECT_EQ(count, 1u) << path;  // /r/<i> too: the Sieve saw each once
    if (path.rfind("/r/", 0) == 0) ++redirects;
  }
  ASSERT_GT(redirects, 0);
  int recorded = 0;
  for (const auto& page : e2e::ReadPages(options.out_dir)) {
    if (page["status"] == 301) {
      ++recorded;
      EXPECT_TRUE(page.contains("redirect_to")) << page.dump();
      EXPECT_EQ(page["links_found"], 1);
    }
  }
  EXPECT_EQ(recorded, redirects);
  EXPECT_EQ(summary->redirects, redirects);
}

TEST(OddCases, RedirectChainsStopAtMaxRedirects) {
  testsite::SiteOptions site_options;
  site_options.pages = 5;
  auto site = StartOddSite(site_options);
  ASSERT_NE(site, nullptr);
  for (int i = 0; i < 10; ++i) {
    const std::string next = site->BaseUrl() + "/chain/" + std::to_string(i + 1);
    site->Handle("/chain/" + std::to_string(i),
                 [next](const httplib::Request&, httplib::Response& res) {
                   res.status = 302;
                   res.set_header("Location", next);
                 });
  }
  crawler::CrawlOptions options = e2e::FastOptions("max-redirects");
  options.max_redirects = 3;
  auto summary = e2e::Crawl(options, {site->BaseUrl() + "/chain/0"});
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(site->RequestCountWithPrefix("/chain/"), 4u);  // the seed plus 3 hops
  EXPECT_EQ(summary->errors_by_kind["too_many_redirects"], 1);
}

TEST(OddCases, NofollowIsHonoredByDefault) {
  testsite::SiteOptions site_options;
  site_options.nofollow = true;
  auto site = StartOddSite(site_options);
  ASSERT_NE(site, nullptr);
  crawler::CrawlOptions options = e2e::FastOptions("nofollow");
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  ExpectEveryPageOnce(*site);
  EXPECT_EQ(site->RequestCountWithPrefix("/nofollow/"), 0u);
  EXPECT_GT(summary->nofollow_skipped, 0);
}

TEST(OddCases, IgnoreNofollowFollowsThem) {
  testsite::SiteOptions site_options;
  site_options.nofollow = true;
  auto site = StartOddSite(site_options);
  ASSERT_NE(site, nullptr);
  crawler::CrawlOptions options = e2e::FastOptions("ignore-nofollow");
  options.ignore_nofollow = true;
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_GT(site->RequestCountWithPrefix("/nofollow/"), 0u);
  EXPECT_EQ(summary->nofollow_skipped, 0);
}

TEST(OddCases, BaseHrefIsHonored) {
  testsite::SiteOptions site_options;
  site_options.base_href = true;
  auto site = StartOddSite(site_options);
  ASSERT_NE(site, nullptr);
  crawler::CrawlOptions options = e2e::FastOptions("base-href");
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  ExpectEveryPageOnce(*site);
  EXPECT_EQ(site->RequestCountWithPrefix("/p/p/"), 0u);
  EXPECT_EQ(site->TotalRequests(), site->PageUrls().size());
}

TEST(OddCases, NonHtmlIsRecordedButNotParsed) {
  testsite::SiteOptions site_options;
  site_options.non_html = true;
  auto site = StartOddSite(site_options);
  ASSERT_NE(site, nullptr);
  crawler::CrawlOptions options = e2e::FastOptions("non-html");
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  ExpectEveryPageOnce(*site);
  EXPECT_EQ(site->RequestCountWithPrefix("/trap/"), 0u);
  const auto files = site->NonHtmlUrls();
  ASSERT_FALSE(files.empty());
  for (const std::string& url : files) EXPECT_EQ(site->RequestCount(PathOf(url)), 1u) << url;
  int non_html_records = 0;
  for (const auto& page : e2e::ReadPages(options.out_dir)) {
    if (PathOf(page["url"].get<std::string>()).rfind("/f/", 0) != 0) continue;
    ++non_html_records;
    EXPECT_EQ(page["links_found"], 0);
    EXPECT_GT(page["bytes"].get<int>(), 0);
  }
  EXPECT_EQ(non_html_records, static_cast<int>(files.size()));
}

TEST(OddCases, BodyCapAbortsAndRecords) {
  testsite::SiteOptions site_options;
  site_options.pages = 5;
  auto site = StartOddSite(site_options);
  ASSERT_NE(site, nullptr);
  const std::string big = "<html><body>" + std::string(1 << 20, 'x') +
                          "<a href='/p/1.html'>late link</a></body></html>";
  site->Handle("/big", [big](const httplib::Request&, httplib::Response& res) {
    res.set_content(big, "text/html");
  });
  crawler::CrawlOptions options = e2e::FastOptions("body-cap");
  options.max_body = 64 << 10;
  auto summary = e2e::Crawl(options, {site->BaseUrl() + "/big"});
  ASSERT_TRUE(summary.ok()) << summary.status();
  const auto pages = e2e::ReadPages(options.out_dir);
  ASSERT_EQ(pages.size(), 1u);
  EXPECT_EQ(pages[0]["error"], "body_too_large");
  EXPECT_LE(pages[0]["bytes"].get<int64_t>(), 64 << 10);
  EXPECT_EQ(pages[0]["truncated"], true);
  EXPECT_EQ(pages[0]["parsed_bytes"], pages[0]["bytes"]);  // the received prefix, parsed
  EXPECT_EQ(site->RequestCount("/p/1.html"), 0u);          // the link past the cut never arrived
}

TEST(OddCases, StalledResponsesTimeOut) {
  testsite::SiteOptions site_options;
  site_options.stalled = true;
  site_options.pages = 50;
  auto site = StartOddSite(site_options);
  ASSERT_NE(site, nullptr);
  crawler::CrawlOptions options = e2e::FastOptions("stalled");
  options.timeout_s = 1;
  options.retries = 0;  // one request each (retried timeouts: tests/e2e/hostile_transport_test.cc)
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  ExpectEveryPageOnce(*site);
  EXPECT_EQ(site->RequestCount("/stall"), 1u);
  EXPECT_EQ(site->RequestCount("/stall-body"), 1u);
  int timeouts = 0;
  for (const auto& page : e2e::ReadPages(options.out_dir)) {
    const std::string path = PathOf(page["url"].get<std::string>());
    if (path == "/stall" || path == "/stall-body") {
      EXPECT_EQ(page["error"], "timeout") << path;
      ++timeouts;
    }
  }
  EXPECT_EQ(timeouts, 2);
  EXPECT_EQ(summary->errors_by_kind["timeout"], 2);
}

}  // namespace
