// Crawls that sat idle and said nothing. While URLs are
// queued and nothing is in flight, the crawler waits for a timer it can name
// (docs/politeness.md, "Waiting"), logs it when the wait is long enough to
// notice, and wakes when it comes. Every crawl here is bounded in time: the
// old code hung for minutes, so a hang fails as exit 142 (SIGALRM).
#include <atomic>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "e2e/binary_crawl.h"
#include "e2e/e2e_util.h"
#include "gtest/gtest.h"
#include "testsite/test_site.h"

namespace {

constexpr int kIdleTimeLimitS = 60;

std::unique_ptr<testsite::TestSite> StartIdleSite() {
  testsite::SiteOptions options;
  options.pages = 1;
  options.links_per_page = 1;
  auto site = testsite::TestSite::Start(options);
  EXPECT_TRUE(site.ok()) << site.status();
  return site.ok() ? std::move(*site) : nullptr;
}

// A page at `path` linking to each of `links`.
void ServeIndex(testsite::TestSite* site, const std::string& path,
                const std::vector<std::string>& links) {
  std::string html = "<html><body>";
  for (const std::string& link : links) absl::StrAppend(&html, "<a href=\"", link, "\">x</a>\n");
  html += "</body></html>";
  site->Handle(path, [html](const httplib::Request&, httplib::Response& res) {
    res.set_content(html, "text/html");
  });
}

// `<prefix><i>` for i < count: `status` (with `Retry-After: retry_after` when
// not empty) to its first request, 200 after.
std::vector<std::string> ServeBusyPages(testsite::TestSite* site, int count, int status,
                                        const std::string& retry_after,
                                        const std::string& prefix = "/busy/") {
  std::vector<std::string> urls;
  for (int i = 0; i < count; ++i) {
    const std::string path = absl::StrCat(prefix, i);
    auto asked = std::make_shared<std::atomic<int>>(0);
    site->Handle(path,
                 [asked, status, retry_after](const httplib::Request&, httplib::Response& res) {
                   if (asked->fetch_add(1) == 0) {
                     res.status = status;
                     if (!retry_after.empty()) res.set_header("Retry-After", retry_after);
                     res.set_content("busy", "text/plain");
                     return;
                   }
                   res.set_content("<html><body>fine</body></html>", "text/html");
                 });
    urls.push_back(site->BaseUrl() + path);
  }
  return urls;
}

int CountStatus(const e2e::BinaryCrawl& crawl, int status) {
  int n = 0;
  for (const auto& page : crawl.pages) n += page["status"] == status;
  return n;
}

// (a) With --robots off, links to a host:port that refuses connections stayed
// queued for good: its host cooled down 1 + 2 + 4 min before being dropped,
// with nothing said. Now a host that never answered and refuses is dropped at
// its first refusal, and each URL is recorded.
TEST(IdleWait, RefusedHostWithRobotsOffEndsAtOnce) {
  auto site = StartIdleSite();
  auto dead = StartIdleSite();
  ASSERT_NE(site, nullptr);
  ASSERT_NE(dead, nullptr);
  const std::string dead_base = dead->BaseUrl();
  dead->Stop();  // its port refuses connections from now on
  std::vector<std::string> links;
  for (int i = 0; i < 20; ++i) links.push_back(absl::StrCat(dead_base, "/x/", i));
  ServeIndex(site.get(), "/index/", links);
  for (const char* robots : {"off", "on"}) {
    const e2e::BinaryCrawl crawl = e2e::RunCrawlBinary(
        absl::StrCat("idle-refused-", robots), {site->BaseUrl() + "/index/"},
        {"--robots", robots, "--scope", "any", "--retry-backoff", "1s", "--per-host", "2"},
        kIdleTimeLimitS);
    EXPECT_EQ(crawl.run.exit_code, 0) << "robots " << robots << "\n" << crawl.run.err;
    EXPECT_EQ(crawl.summary["stop_reason"], "drained") << robots;
    EXPECT_EQ(crawl.CountWithPrefix("/x/"), 20) << robots;  // each dead URL has its record
    for (const auto& page : crawl.pages) {
      if (e2e::PathOf(page["url"].get<std::string>()).rfind("/x/", 0) != 0) continue;
      EXPECT_TRUE(page["status"].is_null()) << page.dump();
      EXPECT_FALSE(page["error"].is_null()) << page.dump();
    }
  }
}

// (b) 503 with Retry-After counted as a host failure: ten of them began a
// one-minute cool-down (at the default --retry-backoff), in silence. It is
// the server asking for a pause, as 429 is: honoured, never a failure; and
// the wait is named in the log with its end. The first page asks for 5 s:
// a wait is logged from 1 s on, and under a sanitizer on a loaded machine
// the crawler took over a second from a 2 s answer to going idle.
TEST(IdleWait, 503WithRetryAfterIsAPauseNamedInTheLog) {
  auto site = StartIdleSite();
  ASSERT_NE(site, nullptr);
  std::vector<std::string> busy = ServeBusyPages(site.get(), 1, 503, "5", "/first/");
  for (const std::string& url : ServeBusyPages(site.get(), 10, 503, "2")) busy.push_back(url);
  ServeIndex(site.get(), "/index/", busy);
  const e2e::BinaryCrawl crawl =
      e2e::RunCrawlBinaryWithLogs("idle-503", {site->BaseUrl() + "/index/"},
                                  {"--retry-backoff", "1s", "--per-host", "2"}, kIdleTimeLimitS);
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
  EXPECT_EQ(crawl.CountWithPrefix("/busy/"), 10);
  EXPECT_EQ(crawl.CountWithPrefix("/first/"), 1);
  EXPECT_EQ(CountStatus(crawl, 200), 12) << crawl.run.err;  // the index and every page
  EXPECT_TRUE(crawl.summary["hosts"][site->BaseUrl()]["dropped"].is_null());
  const std::string named =
      absl::StrCat("waiting for Retry-After of a 503 (5s) of ", site->BaseUrl(), " until ");
  EXPECT_NE(crawl.run.err.find(named), std::string::npos) << crawl.run.err;
  EXPECT_EQ(crawl.run.err.find("stalled"), std::string::npos) << crawl.run.err;
}

// Two names on one server (--resolve) with no delay of their own and
// --ip-delay 1500ms: after the first page, the second waits for the server's
// interval, and the log names the server and that interval, not a host's
// delay.
TEST(IdleWait, AServerIntervalIsNamedAsTheServers) {
  auto site = StartIdleSite();
  ASSERT_NE(site, nullptr);
  ServeIndex(site.get(), "/leaf/", {});
  const std::string port = absl::StrCat(site->port());
  const e2e::BinaryCrawl crawl = e2e::RunCrawlBinaryWithLogs(
      "idle-server-interval",
      {absl::StrCat("http://a.test:", port, "/leaf/"),
       absl::StrCat("http://b.test:", port, "/leaf/")},
      {"--robots", "off", "--delay", "0", "--per-ip", "1", "--ip-delay", "1500ms",
       "--block-private", "off", "--resolve", absl::StrCat("a.test:", port, ":127.0.0.1"),
       "--resolve", absl::StrCat("b.test:", port, ":127.0.0.1")},
      kIdleTimeLimitS);
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
  EXPECT_EQ(CountStatus(crawl, 200), 2) << crawl.run.err;
  const std::string named =
      absl::StrCat("waiting for the interval between requests to server 127.0.0.1:", port,
                   " (ip-delay 1.5s) for http://");
  EXPECT_NE(crawl.run.err.find(named), std::string::npos) << crawl.run.err;
  EXPECT_EQ(crawl.run.err.find("waiting for the delay between requests"), std::string::npos)
      << crawl.run.err;
}

// The invariant over the cases that left a crawl idle: 503 and 429, with and
// without Retry-After, --per-host 1 and 2, robots on and off, one host and
// two. Every page ends 200 within the time limit, nothing stalls.
using Case = std::tuple<int, bool, int, bool, int>;  // status, Retry-After, per-host, robots, hosts

class IdleWaitMatrix : public ::testing::TestWithParam<Case> {};

TEST_P(IdleWaitMatrix, EveryPauseEndsAndEveryPageIsFetched) {
  const auto [status, retry_after, per_host, robots, hosts] = GetParam();
  constexpr int kPages = 3;
  std::vector<std::unique_ptr<testsite::TestSite>> sites;
  std::vector<std::string> seeds;
  for (int h = 0; h < hosts; ++h) {
    sites.push_back(StartIdleSite());
    ASSERT_NE(sites.back(), nullptr);
    ServeIndex(sites.back().get(), "/index/",
               ServeBusyPages(sites.back().get(), kPages, status, retry_after ? "1" : ""));
    seeds.push_back(sites.back()->BaseUrl() + "/index/");
  }
  const e2e::BinaryCrawl crawl = e2e::RunCrawlBinary(
      absl::StrCat("idle-matrix-", status, retry_after, per_host, robots, hosts), seeds,
      {"--per-host", absl::StrCat(per_host), "--robots", robots ? "on" : "off", "--retries", "3"},
      kIdleTimeLimitS);
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
  EXPECT_EQ(crawl.summary["stop_reason"], "drained");
  EXPECT_EQ(crawl.CountWithPrefix("/busy/"), kPages * hosts);
  EXPECT_EQ(CountStatus(crawl, 200), (kPages + 1) * hosts) << crawl.run.err;
  EXPECT_EQ(crawl.run.err.find("stalled"), std::string::npos) << crawl.run.err;
}

INSTANTIATE_TEST_SUITE_P(RetryAfterPauses, IdleWaitMatrix,
                         ::testing::Combine(::testing::Values(503, 429), ::testing::Bool(),
                                            ::testing::Values(1, 2), ::testing::Bool(),
                                            ::testing::Values(1, 2)));

}  // namespace
