// End to end, in process: the real Crawler (Sieve, Frontier, curl, Gumbo)
// against the generated test site on 127.0.0.1, asserting on what the server
// saw. No timing asserts: every check is a count or a set.
#include <set>
#include <string>
#include <vector>

#include "e2e/e2e_util.h"
#include "gtest/gtest.h"
#include "testsite/test_site.h"

namespace {

using e2e::PathOf;

std::unique_ptr<testsite::TestSite> StartSite(const testsite::SiteOptions& options) {
  auto site = testsite::TestSite::Start(options);
  EXPECT_TRUE(site.ok()) << site.status();
  return site.ok() ? std::move(*site) : nullptr;
}

std::set<std::string> FetchedUrls(const std::vector<nlohmann::json>& pages) {
  std::set<std::string> urls;
  for (const auto& page : pages) urls.insert(page["url"].get<std::string>());
  return urls;
}

TEST(Crawl, EveryPageIsFetchedExactlyOnce) {
  testsite::SiteOptions site_options;
  site_options.pages = 400;
  site_options.links_per_page = 10;
  auto site = StartSite(site_options);
  ASSERT_NE(site, nullptr);
  const crawler::CrawlOptions options = e2e::FastOptions("exactly-once");
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();

  const std::vector<std::string> expected = site->PageUrls();
  ASSERT_EQ(expected.size(), 400u);
  for (const std::string& url : expected) {
    EXPECT_EQ(site->RequestCount(PathOf(url)), 1u) << url;
  }
  EXPECT_EQ(site->TotalRequests(), expected.size());  // nothing else requested

  const auto pages = e2e::ReadPages(options.out_dir);
  EXPECT_EQ(pages.size(), expected.size());
  EXPECT_EQ(FetchedUrls(pages), std::set<std::string>(expected.begin(), expected.end()));
  for (const auto& page : pages) {
    EXPECT_EQ(page["status"], 200);
    EXPECT_TRUE(page["error"].is_null());
    if (page["url"] == site->RootUrl()) {
      EXPECT_EQ(page["depth"], 0);
      EXPECT_TRUE(page["parent"].is_null());
    } else {
      EXPECT_GE(page["depth"].get<int>(), 1);
      EXPECT_EQ(page["parent"].get<std::string>().rfind(site->BaseUrl(), 0), 0u);
    }
  }
  const auto json = e2e::ReadSummary(options.out_dir);
  EXPECT_EQ(json["pages"], 400);
  EXPECT_EQ(json["stop_reason"], "drained");
  EXPECT_EQ(json["links_new"], 399);  // every page but the seed was discovered once
  EXPECT_GT(json["filter_bytes"].get<int64_t>(), 0);
}

}  // namespace
