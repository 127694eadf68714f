// End to end through the `crawl` binary: servers that misbehave at the
// transport level: resets mid-headers and
// mid-body, a drip of one byte a second, 5xx and resets that heal after two
// tries (--retries, exponential back-off), redirect loops and chains longer
// than --max-redirects, and --block-private. For each: exit 0, the URL
// recorded with a clear error (or its final status), the rest of the site
// crawled exactly once.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "e2e/binary_crawl.h"
#include "gtest/gtest.h"
#include "testsite/test_site.h"

namespace {

using e2e::BinaryCrawl;
using e2e::ExpectSiteCrawled;
using e2e::PathOf;

TEST(HostileTransport, ResetsMidHeadersAndMidBodyAreRetriedThenRecorded) {
  auto site = e2e::StartSmallSite({.resets = true});
  ASSERT_NE(site, nullptr);
  const BinaryCrawl crawl = e2e::RunCrawlBinary("resets", {site->RootUrl()});
  ExpectSiteCrawled(*site, crawl);
  for (const std::string path : {"/reset/headers", "/reset/body"}) {
    ASSERT_EQ(crawl.by_path.count(path), 1u) << path;
    const auto& page = crawl.by_path.at(path);
    EXPECT_EQ(page["error"], "reset") << page.dump();
    EXPECT_EQ(page["attempts"], 3) << page.dump();  // --retries 2 by default
    EXPECT_EQ(site->RequestCount(path), 3u) << path;
  }
  EXPECT_EQ(crawl.CountWithPrefix("/reset/"), 2);  // one record per URL, not per attempt
}

// A port nobody listens on: bound, then closed, so connect() is refused.
int ClosedPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  ::inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  socklen_t length = sizeof(address);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

// Nothing ever answered there, so the refusal drops the
// host at once (as the robots gate gives its robots.txt up): recorded with
// its error after one attempt, not retried into a cool-down.
TEST(HostileTransport, ConnectionRefusedByAHostThatNeverAnsweredIsRecordedAtOnce) {
  auto site = e2e::StartSmallSite({});
  ASSERT_NE(site, nullptr);
  const std::string refused = "http://127.0.0.1:" + std::to_string(ClosedPort()) + "/gone";
  const BinaryCrawl crawl = e2e::RunCrawlBinary("refused", {site->RootUrl(), refused});
  ExpectSiteCrawled(*site, crawl);
  ASSERT_EQ(crawl.by_path.count("/gone"), 1u);
  EXPECT_EQ(crawl.by_path.at("/gone")["error"], "connect");
  EXPECT_EQ(crawl.by_path.at("/gone")["attempts"], 1);
}

TEST(HostileTransport, AcceptAndNeverAnswerTimesOut) {
  auto site = e2e::StartSmallSite({.stalled = true});
  ASSERT_NE(site, nullptr);
  const BinaryCrawl crawl =
      e2e::RunCrawlBinary("stalled", {site->RootUrl()}, {"--timeout", "1s", "--retries", "0"});
  ExpectSiteCrawled(*site, crawl);
  for (const std::string path : {"/stall", "/stall-body"}) {
    ASSERT_EQ(crawl.by_path.count(path), 1u) << path;
    EXPECT_EQ(crawl.by_path.at(path)["error"], "timeout") << path;
    EXPECT_EQ(site->RequestCount(path), 1u) << path;
  }
}

TEST(HostileTransport, ADripOfOneByteASecondIsCutByTheTimeout) {
  auto site = e2e::StartSmallSite({.drip = true, .drip_interval_ms = 1000});
  ASSERT_NE(site, nullptr);
  const BinaryCrawl crawl =
      e2e::RunCrawlBinary("drip", {site->RootUrl()}, {"--timeout", "2s", "--retries", "0"});
  ExpectSiteCrawled(*site, crawl);
  ASSERT_EQ(crawl.by_path.count("/drip"), 1u);
  EXPECT_EQ(crawl.by_path.at("/drip")["error"], "timeout");
  EXPECT_EQ(crawl.by_path.at("/drip")["attempts"], 1);
  EXPECT_LT(crawl.by_path.at("/drip")["fetch_ms"].get<double>(), 2900);
}

// The request times of `path`, in ms after its first request.
std::vector<double> RequestOffsetsMs(const testsite::TestSite& site, const std::string& path) {
  std::vector<double> offsets;
  std::chrono::steady_clock::time_point first{};
  for (const auto& request : site.RequestLog()) {
    if (request.path != path) continue;
    if (offsets.empty()) first = request.start_time;
    offsets.push_back(
        std::chrono::duration<double, std::milli>(request.start_time - first).count());
  }
  return offsets;
}

TEST(HostileTransport, FiveHundredsAndResetsHealWithRetriesAndBackOff) {
  auto site = e2e::StartSmallSite({.flaky = true, .flaky_failures = 2});
  ASSERT_NE(site, nullptr);
  const BinaryCrawl crawl = e2e::RunCrawlBinary("flaky-healed", {site->RootUrl()},
                                                {"--retries", "2", "--retry-backoff", "200ms"});
  ExpectSiteCrawled(*site, crawl);
  for (const std::string kind : {"500", "502", "503", "504", "reset"}) {
    const std::string path = "/flaky/" + kind;
    ASSERT_EQ(crawl.by_path.count(path), 1u) << path;
    const auto& page = crawl.by_path.at(path);
    EXPECT_EQ(page["status"], 200) << page.dump();
    EXPECT_TRUE(page["error"].is_null()) << page.dump();
    EXPECT_EQ(page["attempts"], 3) << page.dump();
    EXPECT_EQ(site->RequestCount(path), 3u) << path;
    // Exponential back-off: 200 ms, then 400 ms (server-side times, minus
    // a little for arrival jitter).
    const std::vector<double> at = RequestOffsetsMs(*site, path);
    ASSERT_EQ(at.size(), 3u);
    EXPECT_GE(at[1] - at[0], 180) << path;
    EXPECT_GE(at[2] - at[1], 380) << path;
  }
}

TEST(HostileTransport, RetriesRunOutAndTheLastFailureIsRecorded) {
  auto site = e2e::StartSmallSite({.flaky = true, .flaky_failures = 5});
  ASSERT_NE(site, nullptr);
  const BinaryCrawl crawl =
      e2e::RunCrawlBinary("flaky-failed", {site->RootUrl()}, {"--retries", "1"});
  ExpectSiteCrawled(*site, crawl);
  for (const int code : {500, 502, 503, 504}) {
    const std::string path = "/flaky/" + std::to_string(code);
    ASSERT_EQ(crawl.by_path.count(path), 1u) << path;
    EXPECT_EQ(crawl.by_path.at(path)["status"], code);
    EXPECT_EQ(crawl.by_path.at(path)["attempts"], 2);
    EXPECT_EQ(site->RequestCount(path), 2u) << path;
  }
  EXPECT_EQ(crawl.by_path.at("/flaky/reset")["error"], "reset");
  EXPECT_EQ(site->RequestCount("/flaky/reset"), 2u);
  const BinaryCrawl no_retry =
      e2e::RunCrawlBinary("flaky-no-retry", {site->BaseUrl() + "/flaky/503"}, {"--retries", "0"});
  EXPECT_EQ(no_retry.run.exit_code, 0) << no_retry.run.err;
  EXPECT_EQ(no_retry.by_path.at("/flaky/503")["attempts"], 1);
}

TEST(HostileTransport, RedirectLoopsEndAndLongChainsStopAtMaxRedirects) {
  auto site = e2e::StartSmallSite({.redirect_traps = true, .redirect_chain = 10});
  ASSERT_NE(site, nullptr);
  const BinaryCrawl crawl =
      e2e::RunCrawlBinary("redirect-traps", {site->RootUrl()}, {"--max-redirects", "3"});
  ExpectSiteCrawled(*site, crawl);
  // The loop: each URL once; the Sieve has seen /loop/a when /loop/b points back.
  EXPECT_EQ(site->RequestCount("/loop/a"), 1u);
  EXPECT_EQ(site->RequestCount("/loop/b"), 1u);
  // The chain: the link plus 3 hops, and the 4th hop is refused.
  EXPECT_EQ(site->RequestCountWithPrefix("/chain/"), 4u);
  ASSERT_EQ(crawl.by_path.count("/chain/3"), 1u);
  EXPECT_EQ(crawl.by_path.at("/chain/3")["error"].get<std::string>().rfind("too_many_redirects", 0),
            0u);
  EXPECT_EQ(crawl.summary["errors_by_kind"]["too_many_redirects"], 1);
}

// What is covered: --block-private on refuses loopback both by address
// (127.0.0.1) and by name (localhost resolves to it: the DNS answer is
// checked), before connecting, recorded as "private_address". A redirect's
// target is fetched like any URL, through the same check; a loopback-only
// test cannot show a redirect from a public host to a private one, since its
// own seed is private too.
TEST(HostileTransport, BlockPrivateRefusesLoopbackByAddressAndByName) {
  auto site = e2e::StartSmallSite({.redirect_traps = true});
  ASSERT_NE(site, nullptr);
  const std::string by_name = "http://localhost:" + std::to_string(site->port()) + "/p/1.html";
  const BinaryCrawl crawl =
      e2e::RunCrawlBinary("block-private", {site->RootUrl(), by_name, site->BaseUrl() + "/chain/0"},
                          {"--block-private", "on"});
  EXPECT_EQ(crawl.run.exit_code, 3) << crawl.run.err;  // nothing fetched (crawler/cli.h)
  EXPECT_EQ(site->TotalRequests(), 0u);                // nothing reached the server
  ASSERT_EQ(crawl.pages.size(), 3u);
  for (const auto& page : crawl.pages) EXPECT_EQ(page["error"], "private_address") << page.dump();
  EXPECT_EQ(crawl.summary["errors_by_kind"]["private_address"], 3);
}

}  // namespace
