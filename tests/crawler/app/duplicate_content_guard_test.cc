// DuplicateContentGuard: links of a host's copies of one
// page are followed max_copies times, then not; distinct pages are never
// cut. Our own choices, not a standard: see docs/reliability.md.
#include "../../../crawler/src/app/duplicate_content_guard.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

namespace crawler {
namespace {

constexpr uint64_t kPage = 0x0123456789abcdefULL;

TEST(DuplicateContentGuard, CopiesPastTheLimitAreCut) {
  DuplicateContentGuard guard(3);
  for (int copy = 1; copy <= 3; ++copy) {
    EXPECT_FALSE(guard.AddPage("http://a.test/s/" + std::to_string(copy), kPage)) << copy;
  }
  EXPECT_TRUE(guard.AddPage("http://a.test/s/4", kPage));
  EXPECT_TRUE(guard.AddPage("http://a.test/s/5?token=1", kPage));
  EXPECT_FALSE(guard.AddPage("http://a.test/other", kPage ^ 0xff));  // another page
}

TEST(DuplicateContentGuard, NearFingerprintsAreOnePage) {
  DuplicateContentGuard guard(2);
  EXPECT_FALSE(guard.AddPage("http://a.test/1", kPage));
  EXPECT_FALSE(guard.AddPage("http://a.test/2", kPage ^ 0b111));  // 3 bits: the same page
  EXPECT_TRUE(guard.AddPage("http://a.test/3", kPage ^ 0b101));
  // 4 bits away: a page of its own.
  EXPECT_FALSE(guard.AddPage("http://a.test/4", kPage ^ 0b1111));
}

TEST(DuplicateContentGuard, EachHostAndPortCountsAlone) {
  DuplicateContentGuard guard(1);
  EXPECT_FALSE(guard.AddPage("http://a.test/x", kPage));
  EXPECT_FALSE(guard.AddPage("http://b.test/x", kPage));
  EXPECT_FALSE(guard.AddPage("http://a.test:8080/x", kPage));
  EXPECT_FALSE(guard.AddPage("https://c.test", kPage));
  EXPECT_TRUE(guard.AddPage("http://a.test/y", kPage));
  EXPECT_TRUE(guard.AddPage("http://a.test:8080/y", kPage));
  EXPECT_TRUE(guard.AddPage("https://c.test/?q", kPage));
}

TEST(DuplicateContentGuard, ZeroTurnsItOff) {
  DuplicateContentGuard guard(0);
  for (int copy = 0; copy < 10; ++copy) EXPECT_FALSE(guard.AddPage("http://a.test/", kPage));
}

// 20 000 distinct pages of one host, even at a limit of 1 copy: none is cut
// (a new page takes an entry afresh; inheriting the evicted entry's count
// would have cut them).
TEST(DuplicateContentGuard, DistinctPagesAreNeverCut) {
  DuplicateContentGuard guard(1);
  std::mt19937_64 random(21);
  for (int page = 0; page < 20000; ++page) {
    ASSERT_FALSE(guard.AddPage("http://big.test/p/" + std::to_string(page), random())) << page;
  }
}

// A trap's copies, one in four of its host's pages, keep their entry while
// the distinct pages between them churn the others: the 101st copy is cut.
TEST(DuplicateContentGuard, ATrapAmongDistinctPagesIsCutAtItsLimit) {
  DuplicateContentGuard guard(100);
  std::mt19937_64 random(5);
  for (int copy = 1; copy <= 101; ++copy) {
    for (int other = 0; other < 3; ++other) {
      ASSERT_FALSE(guard.AddPage("http://shop.test/item", random() | 1));
    }
    EXPECT_EQ(guard.AddPage("http://shop.test/s/" + std::to_string(copy), kPage), copy > 100)
        << copy;
  }
}

}  // namespace
}  // namespace crawler
