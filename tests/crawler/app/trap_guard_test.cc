// TrapGuard: each defence cuts what it must and nothing a
// real site has. Our own choices, not a standard: see docs/reliability.md.
#include "../../../crawler/src/app/trap_guard.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace crawler {
namespace {

TEST(TrapGuard, RepeatedSegmentRunsAreFound) {
  EXPECT_TRUE(HasRepeatedSegments("/a/a/a/", 3));
  EXPECT_TRUE(HasRepeatedSegments("/x/a/b/a/b/a/b/y", 3));
  EXPECT_TRUE(HasRepeatedSegments("/1/2/3/1/2/3/1/2/3", 3));
  EXPECT_FALSE(HasRepeatedSegments("/a/a/b/", 3));
  EXPECT_FALSE(HasRepeatedSegments("/a/b/a/b/", 3));
  EXPECT_FALSE(HasRepeatedSegments("/docs/3/library/os.path.html", 3));
  EXPECT_FALSE(HasRepeatedSegments("/a/a/a/", 0));
  EXPECT_FALSE(HasRepeatedSegments("/", 3));
}

TEST(TrapGuard, QueryVariantsOfOnePathAreCapped) {
  CrawlOptions options;
  options.trap_query_variants = 3;
  TrapGuard guard(options);
  for (int i = 0; i < 3; ++i) {
    const std::string url = "http://a.test/s?token=" + std::to_string(i);
    EXPECT_EQ(guard.Check(url, "a.test"), TrapKind::kNone) << i;
    guard.OnPageFetched(url);
  }
  EXPECT_EQ(guard.Check("http://a.test/s?token=9", "a.test"), TrapKind::kQueryVariants);
  EXPECT_EQ(guard.Check("http://a.test/s", "a.test"), TrapKind::kNone);  // no query
  EXPECT_EQ(guard.Check("http://a.test/other?token=9", "a.test"), TrapKind::kNone);
}

TEST(TrapGuard, HostBudgetGrowsWithHostsLinkingIn) {
  CrawlOptions options;
  options.trap_host_budget = 5;
  TrapGuard guard(options);
  for (int i = 0; i < 5; ++i) guard.OnPageFetched("http://cal.test/d/" + std::to_string(i));
  EXPECT_EQ(guard.Check("http://cal.test/d/9", "cal.test"), TrapKind::kHostBudget);
  EXPECT_EQ(guard.Check("http://other.test/", "cal.test"), TrapKind::kNone);
  // Another host links in: 1000 more pages for cal.test.
  EXPECT_EQ(guard.Check("http://cal.test/d/9", "fan.test"), TrapKind::kNone);
  EXPECT_EQ(guard.Check("http://cal.test/d/10", "cal.test"), TrapKind::kNone);
}

TEST(TrapGuard, ZeroTurnsEachDefenceOff) {
  CrawlOptions options;
  options.trap_host_budget = 0;
  options.trap_query_variants = 0;
  options.trap_repeated_segments = 0;
  TrapGuard guard(options);
  for (int i = 0; i < 2000; ++i) guard.OnPageFetched("http://a.test/s?t=" + std::to_string(i));
  EXPECT_EQ(guard.Check("http://a.test/s?t=x", "a.test"), TrapKind::kNone);
  EXPECT_EQ(guard.Check("http://a.test/a/a/a/a", "a.test"), TrapKind::kNone);
}

// Two guards fed the same pages and links, one splitting each link itself,
// the other given the parts split once by its caller: the same verdicts,
// link by link, as every defence fills up.
TEST(TrapGuard, SplitPartsGiveTheVerdictsOfTheUrlAlone) {
  CrawlOptions options;
  options.trap_host_budget = 4;
  options.trap_query_variants = 2;
  options.trap_repeated_segments = 3;
  TrapGuard by_url(options);
  TrapGuard by_parts(options);
  int cut = 0;
  for (int i = 0; i < 12; ++i) {
    const std::string n = std::to_string(i);
    for (const std::string& url :
         {"http://a.test/s?t=" + n, "http://u@a.test:81/p/" + n, "http://b.test/x/x/x/" + n,
          "http://c.test?" + n, "http://c.test/d/" + n + "#f?g", "http://[::1]:80/q?" + n}) {
      for (const std::string_view from : {"a.test", "", "z.test"}) {
        const TrapKind kind = by_url.Check(url, from);
        EXPECT_EQ(by_parts.Check(url, SplitUrl(url), from), kind) << url << " from " << from;
        cut += kind != TrapKind::kNone;
      }
      by_url.OnPageFetched(url);
      by_parts.OnPageFetched(url);
    }
  }
  EXPECT_GT(cut, 0);  // the defences did fill up
  EXPECT_EQ(by_parts.Encode(), by_url.Encode());
}

// The counts survive a checkpoint: a guard restored from another's Encode cuts
// where the first one would, instead of giving the trap a fresh budget.
TEST(TrapGuard, CountsComeBackFromTheirText) {
  CrawlOptions options;
  options.trap_host_budget = 5;
  options.trap_query_variants = 3;
  TrapGuard before(options);
  for (int i = 0; i < 5; ++i) before.OnPageFetched("http://cal.test/d/" + std::to_string(i));
  for (int i = 0; i < 3; ++i) before.OnPageFetched("http://a.test/s?t=" + std::to_string(i));
  EXPECT_EQ(before.Check("http://b.test/", "fan.test"), TrapKind::kNone);  // an in-link for b

  TrapGuard after(options);
  ASSERT_TRUE(after.Decode(before.Encode(), "traps.txt").ok());
  EXPECT_EQ(after.Check("http://cal.test/d/9", "cal.test"), TrapKind::kHostBudget);
  EXPECT_EQ(after.Check("http://a.test/s?t=9", "a.test"), TrapKind::kQueryVariants);
  EXPECT_EQ(after.Encode(), before.Encode());

  TrapGuard fresh(options);  // what a resume without the counts would do
  EXPECT_EQ(fresh.Check("http://cal.test/d/9", "cal.test"), TrapKind::kNone);
}

// Golden: the text of traps.txt (crawl state version 4). Slots are XXH3's
// low 18 bits of the host ("cal.test") and of the path up to its query
// ("http://a.test/s"); the in-link bit is XXH3's top 6 bits of the linking
// host. A change here is a change of format: bump kCrawlStateVersion.
TEST(TrapGuard, EncodedTextIsFrozen) {
  CrawlOptions options;
  TrapGuard guard(options);
  guard.OnPageFetched("http://cal.test/d/1");
  guard.OnPageFetched("http://cal.test/d/2");
  guard.OnPageFetched("http://a.test/s?t=1");
  guard.Check("http://cal.test/d/3", "fan.test");
  EXPECT_EQ(guard.Encode(),
            "traps\t1\t262144\n"
            "host\t102316\t2\t400000000000\n"  // cal.test: 2 pages, fan.test links in
            "host\t178186\t1\t0\n"             // a.test: 1 page
            "path\t57594\t1\n");               // http://a.test/s: 1 query variant
}

TEST(TrapGuard, DamagedTextIsDataLossNamingTheLineAndChangesNothing) {
  CrawlOptions options;
  options.trap_host_budget = 1;
  TrapGuard guard(options);
  const struct {
    const char* text;
    const char* where;
  } cases[] = {
      {"", "traps.txt:1: empty"},
      {"traps\t2\t262144\n", "traps.txt:1: not a traps file of version 1"},
      {"traps\t1\t1024\n", "traps.txt:1: slot count 1024"},
      {"traps\t1\t262144\nhost\t1\t5\n", "traps.txt:2: not a host or path line"},
      {"traps\t1\t262144\npath\t262144\t5\n", "traps.txt:2: not a host or path line"},
      {"traps\t1\t262144\nhost\t7\t1\tzz\n", "traps.txt:2: not a host or path line"},
  };
  for (const auto& c : cases) {
    const absl::Status status = guard.Decode(c.text, "traps.txt");
    EXPECT_TRUE(absl::IsDataLoss(status)) << c.text;
    EXPECT_NE(status.message().find(c.where), std::string::npos) << status;
  }
  // A damaged file after good lines restored none of them.
  EXPECT_FALSE(guard.Decode("traps\t1\t262144\nhost\t0\t9\t0\nbad\n", "traps.txt").ok());
  EXPECT_EQ(guard.Encode(), "traps\t1\t262144\n");
}

}  // namespace
}  // namespace crawler
