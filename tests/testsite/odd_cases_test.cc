// The odd-case switches: each adds what its SiteOptions comment promises, and
// never changes the expected page sets (a complete crawl still finds exactly
// PageUrls()). Source of truth: the served bytes, read with httplib::Client.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>

#include "reference_crawl.h"
#include "testsite/test_site.h"

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testsite::SiteOptions;
using testsite::TestSite;
using testsite_test::FollowableHrefs;
using testsite_test::PathOf;
using testsite_test::Paths;
using testsite_test::ReferenceCrawl;
using testsite_test::ResolveHref;
using testsite_test::StartOrDie;
using Clock = std::chrono::steady_clock;

std::set<std::string> CrawledPages(const testsite_test::CrawlResult& crawl) {
  std::set<std::string> pages;
  for (const auto& [path, depth] : crawl.html_depth) pages.insert(path);
  return pages;
}

// A full crawl finds exactly the expected pages, each fetched once, no errors.
void ExpectCompleteCrawl(const TestSite& site, const testsite_test::CrawlResult& crawl) {
  EXPECT_THAT(crawl.errors, ElementsAre());
  EXPECT_EQ(CrawledPages(crawl), Paths(site, site.PageUrls()));
  for (const std::string& url : site.PageUrls()) {
    EXPECT_EQ(site.RequestCount(PathOf(site, url)), 1u) << url;
  }
  EXPECT_EQ(site.RequestCountWithPrefix("/trap/"), 0u);
}

TEST(OddCasesTest, SwitchesNeverChangeWhereLinksPoint) {
  const SiteOptions plain{.pages = 200, .links_per_page = 5, .seed = 5};
  SiteOptions odd = plain;
  odd.redirects = odd.non_html = odd.slow = odd.stalled = odd.nofollow = odd.base_href = true;
  auto a = StartOrDie(plain);
  auto b = StartOrDie(odd);
  ASSERT_TRUE(a && b);
  for (int depth = 0; depth <= 3; ++depth) {
    EXPECT_EQ(Paths(*a, a->PageUrlsWithinDepth(depth)), Paths(*b, b->PageUrlsWithinDepth(depth)));
  }
}

TEST(OddCasesTest, RedirectsAre301sToPagesAndACrawlStillFindsEveryPageOnce) {
  auto site = StartOrDie({.pages = 200, .links_per_page = 6, .redirects = true});
  ASSERT_NE(site, nullptr);
  const auto crawl = ReferenceCrawl(*site);
  ExpectCompleteCrawl(*site, crawl);
  ASSERT_GT(crawl.redirects.size(), 20u);
  httplib::Client client("127.0.0.1", site->port());
  client.set_keep_alive(true);
  bool saw_absolute = false;
  bool saw_relative = false;
  for (const std::string& path : crawl.redirects) {
    ASSERT_EQ(path.rfind("/r/", 0), 0u) << path;
    EXPECT_EQ(site->RequestCount(path), 1u) << path;
    const auto response = client.Get(path);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 301);
    const std::string location = response->get_header_value("Location");
    const std::string number = path.substr(3);
    const std::string page = number == "0" ? "/" : "/p/" + number + ".html";
    EXPECT_EQ(ResolveHref(site->BaseUrl(), path, location), page);
    (location[0] == '/' ? saw_relative : saw_absolute) = true;
  }
  EXPECT_TRUE(saw_absolute && saw_relative);
}

TEST(OddCasesTest, NonHtmlFilesCarryTrapsThatOnlyAParserWouldFind) {
  auto site = StartOrDie({.pages = 200, .links_per_page = 6, .non_html = true});
  ASSERT_NE(site, nullptr);
  const auto crawl = ReferenceCrawl(*site);
  ExpectCompleteCrawl(*site, crawl);
  EXPECT_EQ(crawl.non_html, Paths(*site, site->NonHtmlUrls()));
  ASSERT_GT(crawl.non_html.size(), 20u);

  httplib::Client client("127.0.0.1", site->port());
  client.set_keep_alive(true);
  std::set<std::string> types;
  for (const std::string& path : crawl.non_html) {
    const auto response = client.Get(path);
    ASSERT_TRUE(response);
    types.insert(response->get_header_value("Content-Type"));
    // A crawler that parses this body finds a trap; requesting it is counted.
    const std::vector<std::string> hrefs = FollowableHrefs(response->body);
    ASSERT_EQ(hrefs.size(), 1u) << path;
    EXPECT_EQ(hrefs[0].rfind("/trap/", 0), 0u);
  }
  EXPECT_EQ(types, (std::set<std::string>{"application/pdf", "text/plain; charset=utf-8"}));
  const auto trap = client.Get("/trap/txt/1");
  ASSERT_TRUE(trap);
  EXPECT_EQ(trap->status, 404);
  EXPECT_EQ(site->RequestCountWithPrefix("/trap/"), 1u);
}

TEST(OddCasesTest, NofollowLinksLeadToRealPagesOutsideTheExpectedSet) {
  auto site = StartOrDie({.pages = 200, .links_per_page = 6, .nofollow = true});
  ASSERT_NE(site, nullptr);
  const auto crawl = ReferenceCrawl(*site);  // skips rel="nofollow"
  ExpectCompleteCrawl(*site, crawl);
  EXPECT_EQ(site->RequestCountWithPrefix("/nofollow/"), 0u);

  httplib::Client client("127.0.0.1", site->port());
  client.set_keep_alive(true);
  int nofollow_links = 0;
  for (const std::string& url : site->PageUrls()) {
    const auto page = client.Get(PathOf(*site, url));
    ASSERT_TRUE(page);
    for (size_t at = page->body.find("rel=\"nofollow\""); at != std::string::npos;
         at = page->body.find("rel=\"nofollow\"", at + 1)) {
      ++nofollow_links;
    }
  }
  EXPECT_GT(nofollow_links, 20);
  const auto hidden = client.Get("/nofollow/3.html");
  ASSERT_TRUE(hidden);
  EXPECT_EQ(hidden->status, 200);
  EXPECT_THAT(hidden->body, HasSubstr("<html"));
}

TEST(OddCasesTest, BaseHrefChangesHowRelativeLinksResolve) {
  auto site = StartOrDie({.pages = 200, .links_per_page = 6, .base_href = true});
  ASSERT_NE(site, nullptr);
  const auto crawl = ReferenceCrawl(*site);  // honours <base href>
  ExpectCompleteCrawl(*site, crawl);

  // A crawler that ignores <base> resolves "p/7.html" against /p/3.html.
  httplib::Client client("127.0.0.1", site->port());
  client.set_keep_alive(true);
  int wrong_paths = 0;
  for (const std::string& url : site->PageUrls()) {
    const std::string path = PathOf(*site, url);
    const auto page = client.Get(path);
    ASSERT_TRUE(page);
    if (page->body.find("<base href=") == std::string::npos) continue;
    for (const std::string& href : FollowableHrefs(page->body)) {
      const std::string ignoring_base = ResolveHref(site->BaseUrl(), path, href);
      if (ignoring_base.rfind("/p/p/", 0) != 0) continue;
      ++wrong_paths;
      const auto response = client.Get(ignoring_base);
      ASSERT_TRUE(response);
      EXPECT_EQ(response->status, 404) << ignoring_base;
    }
  }
  EXPECT_GT(wrong_paths, 10);
}

TEST(OddCasesTest, LatencyDelaysEveryGeneratedResponse) {
  auto site = StartOrDie({.pages = 10, .latency_ms = 150});
  ASSERT_NE(site, nullptr);
  httplib::Client client("127.0.0.1", site->port());
  client.set_keep_alive(true);
  for (const char* path : {"/", "/p/3.html", "/missing"}) {
    const auto start = Clock::now();
    ASSERT_TRUE(client.Get(path));
    EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(150)) << path;
  }
}

TEST(OddCasesTest, SlowPagesAnswerLater) {
  auto site = StartOrDie({.pages = 50, .slow = true, .slow_ms = 400, .slow_every = 10});
  ASSERT_NE(site, nullptr);
  httplib::Client client("127.0.0.1", site->port());
  client.set_keep_alive(true);
  const auto timed_get = [&client](const std::string& path) {
    const auto start = Clock::now();
    EXPECT_TRUE(client.Get(path));
    return Clock::now() - start;
  };
  const auto slow = timed_get("/p/9.html");
  const auto fast = timed_get("/p/8.html");
  EXPECT_GE(slow, std::chrono::milliseconds(400));
  EXPECT_LT(fast, slow);
  EXPECT_GE(timed_get("/p/19.html"), std::chrono::milliseconds(400));
}

TEST(OddCasesTest, StalledRoutesTimeOutClientsAndStopStillReturnsPromptly) {
  auto site = StartOrDie({.pages = 20, .stalled = true});
  ASSERT_NE(site, nullptr);
  httplib::Client probe("127.0.0.1", site->port());
  const auto root = probe.Get("/");
  ASSERT_TRUE(root);
  EXPECT_THAT(root->body, HasSubstr("href=\"/stall\""));
  EXPECT_THAT(root->body, HasSubstr("/stall-body\""));

  httplib::Client impatient("127.0.0.1", site->port());
  impatient.set_read_timeout(std::chrono::milliseconds(300));
  const auto stalled = impatient.Get("/stall");
  EXPECT_FALSE(stalled);
  EXPECT_EQ(stalled.error(), httplib::Error::Read);
  // /stall-body sends its headers and half its body, then stalls.
  const auto half = impatient.Get("/stall-body");
  EXPECT_FALSE(half);

  // A patient client is still waiting when the site stops.
  std::atomic<bool> patient_done{false};
  std::thread patient([&] {
    httplib::Client client("127.0.0.1", site->port());
    client.set_keep_alive(true);
    client.set_read_timeout(std::chrono::seconds(60));
    const auto response = client.Get("/stall");
    if (response) {
      EXPECT_EQ(response->status, 503);
    }
    patient_done = true;
  });
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (site->RequestCount("/stall") < 2 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(site->RequestCount("/stall"), 2u);
  EXPECT_FALSE(patient_done);
  probe.stop();
  impatient.stop();
  const auto stop_start = Clock::now();
  site->Stop();
  EXPECT_LT(Clock::now() - stop_start, std::chrono::seconds(3));
  patient.join();
  EXPECT_TRUE(patient_done);
}

TEST(OddCasesTest, CompressionIsOffUnlessAskedFor) {
  auto plain = StartOrDie({.pages = 10});
  auto compressed = StartOrDie({.pages = 10, .compress = true});
  ASSERT_TRUE(plain && compressed);
  const httplib::Headers gzip{{"Accept-Encoding", "gzip"}};
  httplib::Client plain_client("127.0.0.1", plain->port());
  const auto identity = plain_client.Get("/", gzip);
  ASSERT_TRUE(identity);
  EXPECT_FALSE(identity->has_header("Content-Encoding"));
  httplib::Client gzip_client("127.0.0.1", compressed->port());
  gzip_client.set_decompress(false);
  const auto zipped = gzip_client.Get("/", gzip);
  ASSERT_TRUE(zipped);
  EXPECT_EQ(zipped->get_header_value("Content-Encoding"), "gzip");
  EXPECT_LT(zipped->body.size(), identity->body.size() / 2);
}

TEST(OddCasesTest, AllSwitchesTogetherStillGiveACompleteCrawl) {
  auto site = StartOrDie({.pages = 300,
                          .links_per_page = 8,
                          .seed = 99,
                          .redirects = true,
                          .non_html = true,
                          .nofollow = true,
                          .base_href = true});
  ASSERT_NE(site, nullptr);
  const auto crawl = ReferenceCrawl(*site);
  ExpectCompleteCrawl(*site, crawl);
  EXPECT_THAT(crawl.redirects, Not(IsEmpty()));
  EXPECT_THAT(crawl.non_html, Not(IsEmpty()));
  EXPECT_EQ(site->RequestCountWithPrefix("/nofollow/"), 0u);
  EXPECT_EQ(site->RequestCountWithPrefix("/p/p/"), 0u);
}

}  // namespace
