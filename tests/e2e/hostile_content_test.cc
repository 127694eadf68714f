// End to end through the `crawl` binary: servers that send hostile content:
// a body that claims 10 GB, a gzip bomb, a
// missing or wrong content type, invalid UTF-8 and an unknown charset, HTML
// nested 100 000 deep, a page of 1 000 000 links, an infinite calendar and
// links to non-http schemes. For each: exit 0, the page recorded (with a clear
// error where there is one), the rest of the site crawled, and the crawl's
// peak RSS under a stated bound.
#include <string>
#include <vector>

#include "e2e/binary_crawl.h"
#include "gtest/gtest.h"
#include "testsite/test_site.h"

namespace {

using e2e::BinaryCrawl;
using e2e::PathOf;

// Peak RSS bound of the crawl process. Sanitizer builds carry shadow memory
// and an allocation quarantine (ASan keeps up to 256 MB of freed blocks), so
// they get a looser bound; the plain figure is the one that matters.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr double kRssBoundMb = 1536;
#else
constexpr double kRssBoundMb = 300;
#endif

// Also: no link inside a body that must not be parsed was followed.
void ExpectSiteCrawledNoTrap(const testsite::TestSite& site, const BinaryCrawl& crawl) {
  e2e::ExpectSiteCrawled(site, crawl);
  EXPECT_EQ(site.RequestCountWithPrefix("/trap/"), 0u);
}

const nlohmann::json& Record(const BinaryCrawl& crawl, const std::string& path) {
  static const nlohmann::json kMissing = {{"missing", path}};
  auto it = crawl.by_path.find(path);
  EXPECT_NE(it, crawl.by_path.end()) << path;
  return it == crawl.by_path.end() ? kMissing : it->second;
}

TEST(HostileContent, ATenGigabyteBodyIsCutAtMaxBody) {
  auto site = e2e::StartSmallSite({.huge_body = true});
  ASSERT_NE(site, nullptr);
  // The default --max-body (10 MiB) must cut it, not the 3 s test timeout.
  const BinaryCrawl crawl = e2e::RunCrawlBinary("huge", {site->RootUrl()}, {"--timeout", "60s"});
  ExpectSiteCrawledNoTrap(*site, crawl);
  const auto& huge = Record(crawl, "/huge");
  EXPECT_EQ(huge["error"], "body_too_large");
  EXPECT_LE(huge["bytes"].get<int64_t>(), 10 << 20);
  EXPECT_EQ(huge["attempts"], 1);  // not a transient failure
  std::printf("huge body: peak RSS %.1f MB\n", crawl.PeakRssMb());
  EXPECT_LT(crawl.PeakRssMb(), kRssBoundMb);
}

TEST(HostileContent, AGzipBombIsCutAtTheDecodedSize) {
  auto site = e2e::StartSmallSite({.gzip_bomb = true});
  ASSERT_NE(site, nullptr);
  const BinaryCrawl crawl = e2e::RunCrawlBinary("bomb", {site->RootUrl()}, {"--max-body", "4MiB"});
  ExpectSiteCrawledNoTrap(*site, crawl);
  const auto& bomb = Record(crawl, "/bomb");
  EXPECT_EQ(bomb["error"], "body_too_large");
  EXPECT_LE(bomb["bytes"].get<int64_t>(), 4 << 20);
  EXPECT_EQ(site->RequestCount("/bomb"), 1u);
  std::printf("gzip bomb: peak RSS %.1f MB\n", crawl.PeakRssMb());
  EXPECT_LT(crawl.PeakRssMb(), kRssBoundMb);
}

TEST(HostileContent, BadContentTypesAreNotParsedAndBadCharsetsAre) {
  auto site = e2e::StartSmallSite({.bad_content = true});
  ASSERT_NE(site, nullptr);
  const BinaryCrawl crawl = e2e::RunCrawlBinary("bad-content", {site->RootUrl()});
  ExpectSiteCrawledNoTrap(*site, crawl);  // includes: nothing under /trap/ requested
  for (const std::string path : {"/ct/missing", "/ct/wrong"}) {
    const auto& page = Record(crawl, path);
    EXPECT_EQ(page["status"], 200) << path;
    EXPECT_TRUE(page["error"].is_null()) << page.dump();
    EXPECT_EQ(page["links_found"], 0) << path;  // not HTML by its label: not parsed
  }
  EXPECT_TRUE(Record(crawl, "/ct/missing")["content_type"].is_null());
  for (const std::string path : {"/cs/bad-utf8", "/cs/unknown"}) {
    const auto& page = Record(crawl, path);
    EXPECT_EQ(page["status"], 200) << path;
    EXPECT_TRUE(page["error"].is_null()) << page.dump();
    EXPECT_GE(page["links_found"].get<int>(), 1) << path;
  }
  EXPECT_EQ(site->RequestCount("/cs/target/1"), 1u);
  EXPECT_EQ(site->RequestCount("/cs/target/2"), 1u);
}

TEST(HostileContent, HtmlNestedAHundredThousandDeepDoesNotCrash) {
  auto site = e2e::StartSmallSite({.deep_nesting = true, .nesting_depth = 100000});
  ASSERT_NE(site, nullptr);
  const BinaryCrawl crawl = e2e::RunCrawlBinary("deep", {site->RootUrl()});
  ExpectSiteCrawledNoTrap(*site, crawl);
  const auto& deep = Record(crawl, "/deep");
  EXPECT_EQ(deep["status"], 200);
  EXPECT_TRUE(deep["error"].is_null()) << deep.dump();
  EXPECT_EQ(site->RequestCount("/deep/top"), 1u);  // the link before the nesting
  std::printf("deep nesting: peak RSS %.1f MB, /deep/bottom fetched %d time(s)\n",
              crawl.PeakRssMb(), static_cast<int>(site->RequestCount("/deep/bottom")));
  EXPECT_LT(crawl.PeakRssMb(), kRssBoundMb);
}

// The links room parses at most the first 4 MiB of a page and keeps at most
// 100 000 links (LinkOptions): those caps, not the page, bound the memory.
TEST(HostileContent, APageWithAMillionLinksIsParsedInBoundedMemory) {
  auto site = e2e::StartSmallSite({.million_links = true, .million_links_count = 1000000});
  ASSERT_NE(site, nullptr);
  // The page is ~43 MB: above the default --max-body, so raise it to parse it.
  const BinaryCrawl crawl = e2e::RunCrawlBinary("million", {site->RootUrl()},
                                                {"--max-body", "64MiB", "--timeout", "60s"});
  ExpectSiteCrawledNoTrap(*site, crawl);
  const auto& million = Record(crawl, "/million");
  EXPECT_EQ(million["status"], 200);
  EXPECT_TRUE(million["error"].is_null()) << million.dump();
  EXPECT_GT(million["bytes"].get<int64_t>(), 40'000'000);  // the whole page arrived
  EXPECT_GE(million["links_found"].get<int>(), 50000);     // those of the parsed prefix
  EXPECT_LE(million["links_found"].get<int>(), 1000000);
  EXPECT_EQ(million["links_new"], 0);  // all on another host: out of scope
  EXPECT_GE(crawl.summary["off_scope"].get<int64_t>(), 50000);
  EXPECT_EQ(site->RequestCountWithPrefix("/m/"), 0u);
  std::printf("million links: %d links found, peak RSS %.1f MB\n",
              million["links_found"].get<int>(), crawl.PeakRssMb());
  EXPECT_LT(crawl.PeakRssMb(), kRssBoundMb);
}

// The received prefix of a cut page is parsed (up to the
// 4 MiB parse cap), the record says so, and memory stays bounded.
TEST(HostileContent, AMillionLinksOverMaxBodyIsCutAndItsPrefixParsed) {
  auto site = e2e::StartSmallSite({.million_links = true, .million_links_count = 1000000});
  ASSERT_NE(site, nullptr);
  // The default --max-body cuts the page; the 3 s test timeout could cut it
  // first on a loaded sanitizer build (CI saw "timeout"), so it is raised.
  const BinaryCrawl crawl =
      e2e::RunCrawlBinary("million-cut", {site->RootUrl()}, {"--timeout", "60s"});
  ExpectSiteCrawledNoTrap(*site, crawl);
  const auto& million = Record(crawl, "/million");
  EXPECT_EQ(million["error"], "body_too_large");
  EXPECT_GT(million["links_found"], 1000);
  EXPECT_EQ(million["truncated"], true);
  EXPECT_EQ(million["parsed_bytes"], 4 << 20);
  EXPECT_LT(crawl.PeakRssMb(), kRssBoundMb);
}

int CalendarRequests(const testsite::TestSite& site) {
  return static_cast<int>(site.RequestCountWithPrefix("/cal/"));
}

TEST(HostileContent, TheCalendarTrapIsStoppedByDepth) {
  auto site = e2e::StartSmallSite({.calendar = true});
  ASSERT_NE(site, nullptr);
  const BinaryCrawl crawl =
      e2e::RunCrawlBinary("calendar-depth", {site->RootUrl()}, {"--max-depth", "12"});
  ExpectSiteCrawledNoTrap(*site, crawl);
  // /cal/2000-01-01 is depth 1, so depth 12 reaches the 12th day and no further.
  EXPECT_EQ(CalendarRequests(*site), 12);
  EXPECT_EQ(site->RequestCount("/cal/2000-01-12"), 1u);
  EXPECT_GT(crawl.summary["over_depth"].get<int>(), 0);
}

TEST(HostileContent, TheCalendarTrapIsStoppedByMaxPagesPerHost) {
  auto site = e2e::StartSmallSite({.calendar = true});
  ASSERT_NE(site, nullptr);
  const BinaryCrawl crawl =
      e2e::RunCrawlBinary("calendar-host", {site->RootUrl()}, {"--max-pages-per-host", "80"});
  ExpectSiteCrawledNoTrap(*site, crawl);
  EXPECT_EQ(site->TotalRequests(), 80u);  // 30 pages + 50 days, then the host is full
  EXPECT_EQ(CalendarRequests(*site), 50);
  EXPECT_GT(crawl.summary["over_host_limit"].get<int>(), 0);
}

TEST(HostileContent, EverLongerUrlsAreStoppedByMaxUrlLength) {
  auto site = e2e::StartSmallSite({.growing_urls = true});
  ASSERT_NE(site, nullptr);
  // The repeated-segment trap defence would stop "/grow/x/x/x/" first (see
  // the next test): off here, this one is about --max-url-length.
  const BinaryCrawl crawl = e2e::RunCrawlBinary(
      "growing", {site->RootUrl()}, {"--max-url-length", "100", "--trap-repeated-segments", "0"});
  ExpectSiteCrawledNoTrap(*site, crawl);
  // "http://127.0.0.1:PORT/grow/" plus "x/" per hop, up to 100 bytes.
  const size_t base = (site->BaseUrl() + "/grow/").size();
  const size_t hops = (100 - base) / 2;
  EXPECT_EQ(site->RequestCountWithPrefix("/grow/"), hops + 1);
  // The extractor drops a link too long once normalized ("rejected"); the
  // filter drops the others ("too_long").
  EXPECT_GE(crawl.summary["too_long"].get<int>() + crawl.summary["rejected"].get<int>(), 1);
}

// With the default flags the repeated-segment defence ends
// the same trap at its third "x/" ("/grow/x/x/x/" is not followed).
TEST(HostileContent, EverLongerUrlsAreStoppedByTheRepeatedSegmentDefence) {
  auto site = e2e::StartSmallSite({.growing_urls = true});
  ASSERT_NE(site, nullptr);
  const BinaryCrawl crawl = e2e::RunCrawlBinary("growing-default", {site->RootUrl()});
  ExpectSiteCrawledNoTrap(*site, crawl);
  EXPECT_EQ(site->RequestCountWithPrefix("/grow/"), 3u);  // /grow/, /grow/x/, /grow/x/x/
  EXPECT_EQ(crawl.summary["traps"]["repeated_segments"], 1);
}

TEST(HostileContent, LinksToOtherSchemesAreNeverFetched) {
  auto site = e2e::StartSmallSite({.odd_schemes = true});
  ASSERT_NE(site, nullptr);
  const BinaryCrawl crawl = e2e::RunCrawlBinary("schemes", {site->RootUrl()});
  ExpectSiteCrawledNoTrap(*site, crawl);
  // mailto, javascript, data, tel, ftp, file, ws, gopher (plus the footer's mailto).
  EXPECT_GE(crawl.summary["rejected"].get<int>(), 8);
  EXPECT_EQ(site->TotalRequests(), site->PageUrls().size());
  for (const auto& page : crawl.pages) {
    EXPECT_EQ(page["url"].get<std::string>().rfind("http://", 0), 0u) << page.dump();
  }
}

}  // namespace
