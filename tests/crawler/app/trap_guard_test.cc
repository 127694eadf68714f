// TrapGuard (issue 21, item 5): each defence cuts what it must and nothing a
// real site has. Our own choices, not a standard: see docs/reliability.md.
#include "../../../crawler/src/app/trap_guard.h"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace crawler
