// Politeness end to end: ten loopback hosts (distinct ports are
// distinct authorities) crawled with --delay 200ms --per-host 1, checked
// against the servers' own request logs; Retry-After honored; a failing host
// backed off and dropped with records while the other hosts finish.
#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "e2e_util.h"
#include "gtest/gtest.h"
#include "testsite/test_site.h"

namespace {

using Clock = std::chrono::steady_clock;

std::unique_ptr<testsite::TestSite> StartPolitenessSite(uint64_t pages) {
  testsite::SiteOptions options;
  options.pages = pages;
  options.links_per_page = 4;
  options.page_bytes = 1024;
  options.threads = 8;
  auto site = testsite::TestSite::Start(options);
  EXPECT_TRUE(site.ok()) << site.status();
  return site.ok() ? std::move(*site) : nullptr;
}

std::vector<std::unique_ptr<testsite::TestSite>> StartSites(int count, uint64_t pages) {
  std::vector<std::unique_ptr<testsite::TestSite>> sites;
  for (int i = 0; i < count; ++i) sites.push_back(StartPolitenessSite(pages));
  return sites;
}

crawler::CrawlOptions PoliteOptions(const std::string& name) {
  crawler::CrawlOptions options = e2e::FastOptions(name);
  options.delay_s = 0.2;
  options.per_host = 1;
  options.connections = 16;
  options.retries = 0;  // each failure is one request: the counts below are exact
  return options;
}

double SecondsOf(const std::function<void()>& run) {
  const Clock::time_point start = Clock::now();
  run();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<testsite::RequestRecord> ByStart(std::vector<testsite::RequestRecord> log) {
  std::sort(log.begin(), log.end(),
            [](const auto& a, const auto& b) { return a.start_time < b.start_time; });
  return log;
}

// The crawler hands URLs of one host to the fetcher at least 200 ms apart
// (summary.json's min_delay_ms checks that exactly). The server logs each
// request when its headers are parsed, later by a variable time, so a gap it
// sees shrinks by as much as the earlier request was late:
//  - its set-up: the first request of a host opens a connection, which took
//    up to 60 ms under sanitizers on a loaded machine (CI saw gaps of 140 and
//    148 ms after a first request). It is measured: the site's log time less
//    the transfer start in pages.jsonl.
//  - kHandOff: the unseen hand-over from the scheduler to the fetch thread and
//    the arrival jitter, 5-20 ms on a loaded 2-core machine (limits_test).
// A broken delay gives gaps of ~1 ms, far below either.
constexpr auto kHandOff = std::chrono::milliseconds(50);

// The earlier request's lateness at the site: its log time less the transfer
// start in `pages` (zero if it is not there: a missing record fails elsewhere).
std::chrono::steady_clock::duration SetUpTime(const testsite::TestSite& site,
                                              const testsite::RequestRecord& request,
                                              const std::vector<nlohmann::json>& pages) {
  const std::string url = site.BaseUrl() + request.path;
  for (const nlohmann::json& page : pages) {
    if (page["url"] != url) continue;
    const auto fetch_start = e2e::FetchStart(page);
    if (!fetch_start) break;
    return std::max(std::chrono::steady_clock::duration::zero(), request.start_time - *fetch_start);
  }
  return std::chrono::steady_clock::duration::zero();
}

TEST(Politeness, TenHostsAtDelay200msPerHost1) {
  constexpr int kHosts = 10;
  constexpr uint64_t kPages = 8;
  auto sites = StartSites(kHosts, kPages);
  std::vector<std::string> seeds;
  for (const auto& site : sites) {
    ASSERT_NE(site, nullptr);
    seeds.push_back(site->RootUrl());
  }
  crawler::CrawlOptions options = PoliteOptions("politeness-10");
  double ten_hosts_s = 0;
  ten_hosts_s = SecondsOf([&] { ASSERT_TRUE(e2e::Crawl(options, seeds).ok()); });

  const std::vector<nlohmann::json> pages = e2e::ReadPages(options.out_dir);
  for (const auto& site : sites) {
    for (const std::string& url : site->PageUrls()) EXPECT_EQ(site->RequestCount(url), 1u) << url;
    EXPECT_LE(site->MaxConcurrentRequests(), 1) << site->BaseUrl();
    const auto log = ByStart(site->RequestLog());
    ASSERT_EQ(log.size(), kPages);
    for (size_t i = 1; i < log.size(); ++i) {
      const auto set_up = SetUpTime(*site, log[i - 1], pages);
      EXPECT_GE(log[i].start_time - log[i - 1].start_time,
                std::chrono::milliseconds(200) - kHandOff - set_up)
          << site->BaseUrl() << " request " << i << ", the one before it "
          << std::chrono::duration<double, std::milli>(set_up).count() << " ms late";
    }
  }
  // summary.json lists each host with its pages and the delay honored.
  const nlohmann::json summary = e2e::ReadSummary(options.out_dir);
  ASSERT_EQ(summary["hosts"].size(), static_cast<size_t>(kHosts));
  for (const auto& site : sites) {
    const nlohmann::json& host = summary["hosts"][site->BaseUrl()];
    EXPECT_EQ(host["pages"], kPages);
    EXPECT_EQ(host["errors"], 0);
    EXPECT_GE(host["mean_delay_ms"].get<double>(), 200.0);
    // The scheduler's own gaps: exact, no arrival jitter.
    EXPECT_GE(host["min_delay_ms"].get<double>(), 200.0);
    EXPECT_LE(host["min_delay_ms"].get<double>(), host["mean_delay_ms"].get<double>() + 1e-6);
    EXPECT_TRUE(host["dropped"].is_null());
  }

  // The same 80 pages on one host take 79 delays (~16 s); on ten hosts 7
  // delays (~1.4 s) plus start-up, so ~1/10. Asserting < 0.3 leaves room for
  // a slow start and a loaded machine, and still fails if politeness
  // serialized the hosts (ratio ~1).
  auto one = StartPolitenessSite(kHosts * kPages);
  ASSERT_NE(one, nullptr);
  crawler::CrawlOptions one_options = PoliteOptions("politeness-1");
  const double one_host_s =
      SecondsOf([&] { ASSERT_TRUE(e2e::Crawl(one_options, {one->RootUrl()}).ok()); });
  EXPECT_EQ(one->TotalRequests(), kHosts * kPages);
  EXPECT_LT(ten_hosts_s, 0.3 * one_host_s) << ten_hosts_s << " s vs " << one_host_s << " s";
}

// robots.txt's Crawl-delay holds from a host's second page on.
// The policy used to ask for it only on every 16th start, so the URLs parked
// while robots.txt was fetched all left at once (a 9-page site never saw it).
// robots.txt is the host's first request; the first page keeps the delay
// after it too. robots.txt has no pages.jsonl record, so its set-up is
// measured from its --warc record's WARC-Date (CI once saw the first page
// 163 ms after it under TSan: the server read robots.txt's request late).
TEST(Politeness, CrawlDelayHoldsFromTheSecondPage) {
  testsite::SiteOptions site_options;
  site_options.pages = 6;
  site_options.links_per_page = 5;
  site_options.page_bytes = 512;
  site_options.robots_txt = "User-agent: *\nCrawl-delay: 0.3\n";
  auto site = testsite::TestSite::Start(site_options);
  ASSERT_TRUE(site.ok()) << site.status();
  crawler::CrawlOptions options = PoliteOptions("politeness-crawl-delay");
  options.delay_s = 0;
  options.per_host = 4;
  options.robots = true;
  options.warc_prefix = options.out_dir + "/crawl";
  ASSERT_TRUE(e2e::Crawl(options, {(*site)->RootUrl()}).ok());
  std::vector<testsite::RequestRecord> log = ByStart((*site)->RequestLog());
  ASSERT_EQ(log.size(), 7u);
  ASSERT_EQ(log[0].path, "/robots.txt");
  // Spaced from robots.txt's request as the server saw it, however long its
  // connect took (counted from its start, it once left 56 ms under TSan).
  const auto robots_start = e2e::WarcFetchStart(options.warc_prefix + "-00000.warc.gz",
                                                (*site)->BaseUrl() + "/robots.txt");
  ASSERT_TRUE(robots_start.has_value()) << "no robots.txt record in the WARC file";
  const auto robots_set_up =
      std::max(std::chrono::steady_clock::duration::zero(), log[0].start_time - *robots_start);
  EXPECT_GE(log[1].start_time - log[0].start_time,
            std::chrono::milliseconds(300) - kHandOff - robots_set_up)
      << "robots.txt reached the server "
      << std::chrono::duration<double, std::milli>(robots_set_up).count() << " ms after its start";
  log.erase(log.begin());
  const std::vector<nlohmann::json> pages = e2e::ReadPages(options.out_dir);
  for (size_t i = 1; i < log.size(); ++i) {
    EXPECT_GE(log[i].start_time - log[i - 1].start_time,
              std::chrono::milliseconds(300) - kHandOff - SetUpTime(**site, log[i - 1], pages))
        << "page request " << i << " (" << log[i].path << ")";
  }
}

TEST(Politeness, RetryAfterPausesTheHost) {
  auto site = StartPolitenessSite(4);
  ASSERT_NE(site, nullptr);
  site->Handle("/busy", [](const httplib::Request&, httplib::Response& response) {
    response.status = 429;
    response.set_header("Retry-After", "1");
    response.set_content("slow down", "text/plain");
  });
  crawler::CrawlOptions options = PoliteOptions("politeness-retry-after");
  options.delay_s = 0;
  options.retries = 0;  // the pause, not the retry (reliability_test.cc)
  const std::string busy = site->BaseUrl() + "/busy";
  ASSERT_TRUE(e2e::Crawl(options, {busy, site->RootUrl()}).ok());
  const auto log = ByStart(site->RequestLog());
  ASSERT_EQ(log.size(), 5u);
  ASSERT_EQ(log[0].path, "/busy");
  const std::vector<nlohmann::json> pages = e2e::ReadPages(options.out_dir);
  // Retry-After: 1 -> nothing for a second (less the same lateness).
  EXPECT_GE(log[1].start_time - log[0].start_time,
            std::chrono::seconds(1) - kHandOff - SetUpTime(*site, log[0], pages));
  int throttled = 0;
  for (const nlohmann::json& page : pages) throttled += page["status"] == 429;
  EXPECT_EQ(throttled, 1);
}

TEST(Politeness, FailingHostsAreDroppedOthersFinish) {
  auto healthy = StartSites(2, 8);
  auto broken = StartPolitenessSite(2);  // answers 500 to the seed paths below
  auto gone = StartPolitenessSite(2);    // stopped: connections refused
  ASSERT_NE(broken, nullptr);
  ASSERT_NE(gone, nullptr);
  gone->Stop();
  std::vector<std::string> seeds;
  for (const auto& site : healthy) {
    ASSERT_NE(site, nullptr);
    seeds.push_back(site->RootUrl());
  }
  constexpr int kUrlsPerBadHost = 9;
  for (int i = 0; i < kUrlsPerBadHost; ++i) {
    const std::string path = absl::StrCat("/fail/", i);
    broken->Handle(path, [](const httplib::Request&, httplib::Response& response) {
      response.status = 500;
      response.set_content("down", "text/plain");
    });
    seeds.push_back(broken->BaseUrl() + path);
    seeds.push_back(gone->BaseUrl() + path);
  }
  crawler::CrawlOptions options = PoliteOptions("politeness-drop");
  options.delay_s = 0;
  // Back-off base 10 ms: 10, 20, 40, 80 ms, then cool-downs of 0.6, 1.2 and
  // 2.4 s (60 back-offs, doubling), one probe after each.
  options.retry_backoff_s = 0.01;
  auto summary = e2e::Crawl(options, seeds);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->stop_reason, "drained");

  // Five failures in a row start the cool-downs; the third probe's failure
  // drops the host: 5 + 3 requests, the rest recorded.
  constexpr int kRequests = 5 + 3;
  EXPECT_EQ(broken->TotalRequests(), static_cast<uint64_t>(kRequests));
  std::map<std::string, int> dropped, fetched;
  for (const nlohmann::json& page : e2e::ReadPages(options.out_dir)) {
    const std::string url = page["url"];
    const std::string base = url.substr(0, url.find('/', 8));
    const std::string error = page["error"].is_null() ? "" : page["error"].get<std::string>();
    (error.rfind("host_dropped: ", 0) == 0 ? dropped : fetched)[base]++;
  }
  EXPECT_EQ(fetched[broken->BaseUrl()], kRequests);
  EXPECT_EQ(dropped[broken->BaseUrl()], kUrlsPerBadHost - kRequests);
  // A host that never answered and refuses connections is
  // dropped at its first refusal (--per-host 1: one request), not cooled down.
  EXPECT_EQ(fetched[gone->BaseUrl()], 1);
  EXPECT_EQ(dropped[gone->BaseUrl()], kUrlsPerBadHost - 1);
  for (const auto& site : healthy) {
    for (const std::string& url : site->PageUrls()) EXPECT_EQ(site->RequestCount(url), 1u) << url;
    EXPECT_EQ(dropped[site->BaseUrl()], 0);
  }
  const nlohmann::json hosts = e2e::ReadSummary(options.out_dir)["hosts"];
  EXPECT_EQ(hosts[broken->BaseUrl()]["dropped"],
            "5 consecutive failures after 3 cool-downs, last: http 500");
  EXPECT_EQ(hosts[gone->BaseUrl()]["dropped"], "no server: connect, nothing answered");
  EXPECT_EQ(hosts[broken->BaseUrl()]["pages"], kUrlsPerBadHost);
  EXPECT_TRUE(hosts[healthy[0]->BaseUrl()]["dropped"].is_null());
}

}  // namespace
