// Session-id traps whose ids sit in the path or under
// parameter names no rule knows ran until the 250 000-page host budget
// (253 996 pages in a minute at --delay 0). They end by what the pages are:
// the duplicate-content defence (--trap-duplicate-content, 100 by default)
// stops following links from a host's pages once it has served 100 with
// the same content fingerprint (crawler/page_fingerprint.h), and sites whose
// pages have words of their own are crawled whole. Through the binary,
// against loopback sites (session_trap_site.h).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "e2e/binary_crawl.h"
#include "e2e/session_trap_site.h"
#include "gtest/gtest.h"
#include "testsite/test_site.h"

namespace {

using e2e::SessionTrapSite;

// Killed past this (exit 142): the trap ran 250 000 pages before, about a
// minute at --delay 0; a bounded crawl of it takes a few seconds.
constexpr int kTrapTimeLimitS = 60;

// Each trap copy links to two fresh copies: the root's link and the 2 x 100
// of the first 100 copies are fetched (201), the 101st copy on follow
// nothing. The site's own 20 pages, fetched at the same depth as the first
// copies, can take the copies' entry among the host's 8 while its count is
// still 1 (duplicate_content_guard.h): the count then starts again, a copy
// more is followed (203 seen). Room for 10 such restarts.
constexpr uint64_t kMostTrapPages = 1 + 2 * (100 + 10);

std::string PlaceName(SessionTrapSite::Place place) {
  switch (place) {
    case SessionTrapSite::kPath:
      return "Path";
    case SessionTrapSite::kToken:
      return "Token";
    case SessionTrapSite::kJsessionid:
      return "Jsessionid";
    case SessionTrapSite::kPhpsessid:
      return "Phpsessid";
    case SessionTrapSite::kNone:
      break;
  }
  return "None";
}

using TrapCase = std::tuple<SessionTrapSite::Place, bool>;  // where the id goes, id in the text

class SessionTrapShapes : public ::testing::TestWithParam<TrapCase> {};

TEST_P(SessionTrapShapes, EndsAfterAFewHundredPagesWithTheSiteWhole) {
  const auto [place, id_in_text] = GetParam();
  SessionTrapSite site({.place = place, .id_in_text = id_in_text, .own_pages = 20});
  const auto start = std::chrono::steady_clock::now();
  const e2e::BinaryCrawl crawl =
      e2e::RunCrawlBinary(absl::StrCat("session-trap-", PlaceName(place), id_in_text),
                          {site.RootUrl()}, {}, kTrapTimeLimitS);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
  EXPECT_EQ(crawl.summary["stop_reason"], "drained");
  EXPECT_GE(site.TrapRequests(), 100u);  // the defence waits for its 100th copy
  EXPECT_LE(site.TrapRequests(), kMostTrapPages);
  EXPECT_GT(crawl.summary["traps"]["duplicate_content"].get<int64_t>(), 0);
  for (int page = 0; page < 20; ++page) EXPECT_EQ(site.OwnPageRequests(page), 1u) << page;
  EXPECT_LT(seconds, 30.0);
  std::printf("trap %s, id in text %d: %llu trap pages, %.1f s\n", PlaceName(place).c_str(),
              id_in_text ? 1 : 0, static_cast<unsigned long long>(site.TrapRequests()), seconds);
}

INSTANTIATE_TEST_SUITE_P(
    TrapPlaces, SessionTrapShapes,
    ::testing::Combine(::testing::Values(SessionTrapSite::kPath, SessionTrapSite::kToken,
                                         SessionTrapSite::kJsessionid, SessionTrapSite::kPhpsessid),
                       ::testing::Bool()),
    [](const ::testing::TestParamInfo<TrapCase>& info) {
      return PlaceName(std::get<0>(info.param)) + (std::get<1>(info.param) ? "IdInText" : "");
    });

// 0 turns the defence off: the path-id trap then runs on (cut here by
// --max-pages, as the host budget would cut it at 250 000).
TEST(DuplicateContent, ZeroTurnsTheDefenceOff) {
  SessionTrapSite site({.place = SessionTrapSite::kPath, .own_pages = 2});
  const e2e::BinaryCrawl crawl = e2e::RunCrawlBinary(
      "session-trap-off", {site.RootUrl()},
      {"--trap-duplicate-content", "0", "--max-pages", "1000"}, kTrapTimeLimitS);
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
  EXPECT_EQ(crawl.summary["pages"], 1000);
  EXPECT_EQ(crawl.summary["traps"]["duplicate_content"], 0);
}

// 1000 pages of one template (title, navigation, footer) that differ in a
// paragraph of 60 words: every one is fetched, none counted as a copy.
TEST(DuplicateContent, TemplatedSiteIsCrawledWhole) {
  constexpr int kPages = 1000;
  SessionTrapSite site({.place = SessionTrapSite::kNone, .own_pages = kPages});
  const e2e::BinaryCrawl crawl =
      e2e::RunCrawlBinary("templated-site", {site.RootUrl()}, {}, kTrapTimeLimitS);
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
  EXPECT_EQ(crawl.summary["stop_reason"], "drained");
  for (int page = 0; page < kPages; ++page) EXPECT_EQ(site.OwnPageRequests(page), 1u) << page;
  EXPECT_EQ(crawl.summary["traps"]["duplicate_content"], 0);
}

// The test site's generated pages (a template and paragraphs of random words,
// as the synthetic benchmark sites): 5000 of them, all fetched once, even at a
// threshold of 2 pages per fingerprint.
TEST(DuplicateContent, SyntheticSiteIsCrawledWholeAtAThresholdOfTwo) {
  testsite::SiteOptions options;
  options.pages = 5000;
  auto site = testsite::TestSite::Start(options);
  ASSERT_TRUE(site.ok()) << site.status();
  const e2e::BinaryCrawl crawl = e2e::RunCrawlBinary(
      "synthetic-site", {(*site)->RootUrl()}, {"--trap-duplicate-content", "2"}, kTrapTimeLimitS);
  e2e::ExpectSiteCrawled(**site, crawl);
  EXPECT_EQ(crawl.summary["traps"]["duplicate_content"], 0);
}

}  // namespace
