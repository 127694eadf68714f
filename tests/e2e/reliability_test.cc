// Issue 21 ("reliability"), end to end against loopback sites: what a hostile
// web and careless users broke. Each test is named after the item it pins;
// docs/reliability.md states the policies.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "crawler/crawl.h"
#include "e2e/binary_crawl.h"
#include "e2e/e2e_util.h"
#include "gtest/gtest.h"
#include "testsite/test_site.h"

namespace {

using e2e::PathOf;

std::unique_ptr<testsite::TestSite> StartTinySite(int pages = 1) {
  testsite::SiteOptions options;
  options.pages = pages;
  options.links_per_page = 1;
  auto site = testsite::TestSite::Start(options);
  EXPECT_TRUE(site.ok()) << site.status();
  return site.ok() ? std::move(*site) : nullptr;
}

// Sends `body` as is: cpp-httplib would compress a set_content() body of a
// text type for a client that accepts it (brotli at its slowest on 20 MB).
void SetRawBody(httplib::Response& res, const std::string& body, const char* type) {
  auto shared = std::make_shared<const std::string>(body);
  res.set_content_provider(shared->size(), type,
                           [shared](size_t offset, size_t length, httplib::DataSink& sink) {
                             return sink.write(shared->data() + offset, length);
                           });
}

// Item 1: a robots.txt naming one sitemap of `count` URLs no page links to
// (they answer 404: a record is what counts).
void AddBigSitemap(testsite::TestSite* site, int count) {
  const std::string base = site->BaseUrl();
  site->Handle("/robots.txt", [base](const httplib::Request&, httplib::Response& res) {
    res.set_content("User-agent: *\nSitemap: " + base + "/big.xml\n", "text/plain");
  });
  std::string xml = "<?xml version=\"1.0\"?><urlset>";
  for (int i = 0; i < count; ++i)
    absl::StrAppend(&xml, "<url><loc>", base, "/s/", i, "</loc></url>");
  xml += "</urlset>";
  site->Handle("/big.xml", [xml](const httplib::Request&, httplib::Response& res) {
    SetRawBody(res, xml, "application/xml");
  });
}

// Item 1: the crawl ended "drained" while a sitemap's URLs were being parsed
// and offered (the gate had forgotten the fetch, the Frontier had not yet
// seen its URLs). Repeated: the window was a race.
TEST(Reliability, Item1BigSitemapIsCrawledWholeEveryTime) {
  constexpr int kUrls = 20000;
  auto site = StartTinySite();
  ASSERT_NE(site, nullptr);
  AddBigSitemap(site.get(), kUrls);
  for (int run = 0; run < 4; ++run) {
    crawler::CrawlOptions options = e2e::FastOptions(absl::StrCat("rel-sitemap-", run));
    options.robots = true;
    options.sitemaps = true;
    options.max_depth = 1;
    site->ResetCounts();
    auto summary = e2e::Crawl(options, {site->RootUrl()});
    ASSERT_TRUE(summary.ok()) << summary.status();
    EXPECT_EQ(site->RequestCountWithPrefix("/s/"), static_cast<uint64_t>(kUrls)) << "run " << run;
    EXPECT_EQ(e2e::ReadSummary(options.out_dir)["queued_at_end"], 0) << "run " << run;
  }
}

}  // namespace

