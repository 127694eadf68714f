// LinkPriority: --prefer / --defer / --depth-priority / [[priority]] add up
// as documented, clamp to the lane range, and no rule means priority 0.
#include "crawler/link_priority.h"

#include "gtest/gtest.h"

namespace crawler {
namespace {

TEST(LinkPriority, NoRuleIsZeroForEveryUrl) {
  absl::StatusOr<LinkPriority> rules = LinkPriority::Create(CrawlOptions{});
  ASSERT_TRUE(rules.ok()) << rules.status();
  EXPECT_FALSE(rules->any());
  EXPECT_EQ(rules->Of("https://a.example/x", "https://a.example", 7), 0);
}

TEST(LinkPriority, RulesAddUp) {
  CrawlOptions options;
  options.prefer = {"/docs/", "\\.html$"};
  options.defer = {"/archive/"};
  options.depth_priority = 2;
  options.priorities = {{.url = "", .host = "*.b.example", .delta = 7},
                        {.url = "lang=fr", .host = "https://a.example", .delta = -4}};
  absl::StatusOr<LinkPriority> rules = LinkPriority::Create(options);
  ASSERT_TRUE(rules.ok()) << rules.status();
  EXPECT_TRUE(rules->any());
  const char* a = "https://a.example";
  EXPECT_EQ(rules->Of("https://a.example/docs/x.html", a, 0), 20);
  EXPECT_EQ(rules->Of("https://a.example/docs/x.html", a, 3), 14);  // - 2 x 3
  EXPECT_EQ(rules->Of("https://a.example/archive/y", a, 1), -12);
  EXPECT_EQ(rules->Of("https://a.example/p?lang=fr", a, 0), -4);  // both url and host match
  EXPECT_EQ(rules->Of("https://c.example/p?lang=fr", "https://c.example", 0), 0);  // host differs
  EXPECT_EQ(rules->Of("https://www.b.example/", "https://www.b.example", 0), 7);
}

TEST(LinkPriority, SitemapPriorityIsScaledByTheFlag) {
  absl::StatusOr<LinkPriority> off = LinkPriority::Create(CrawlOptions{});
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->OfSitemapUrl("https://a.example/x", "https://a.example", 1, 1.0), 0);
  CrawlOptions options;
  options.sitemap_priority = 10;
  options.prefer = {"/docs/"};
  absl::StatusOr<LinkPriority> rules = LinkPriority::Create(options);
  ASSERT_TRUE(rules.ok());
  const char* a = "https://a.example";
  EXPECT_EQ(rules->OfSitemapUrl("https://a.example/x", a, 1, 1.0), 10);
  EXPECT_EQ(rules->OfSitemapUrl("https://a.example/x", a, 1, 0.5), 0);
  EXPECT_EQ(rules->OfSitemapUrl("https://a.example/x", a, 1, 0.8), 6);
  EXPECT_EQ(rules->OfSitemapUrl("https://a.example/x", a, 1, 0.0), -10);
  EXPECT_EQ(rules->OfSitemapUrl("https://a.example/docs/y", a, 1, 0.0), 0);  // +10 - 10
  EXPECT_EQ(rules->Of("https://a.example/x", a, 1), 0);  // links of pages: no sitemap term
}

TEST(LinkPriority, ClampedToTheLaneRange) {
  CrawlOptions options;
  options.depth_priority = -100;  // deeper first
  absl::StatusOr<LinkPriority> rules = LinkPriority::Create(options);
  ASSERT_TRUE(rules.ok());
  EXPECT_EQ(rules->Of("https://a.example/", "https://a.example", 3), 300);
  EXPECT_EQ(rules->Of("https://a.example/", "https://a.example", 50), kMaxPriority);
  options.depth_priority = 100;
  rules = LinkPriority::Create(options);
  ASSERT_TRUE(rules.ok());
  EXPECT_EQ(rules->Of("https://a.example/", "https://a.example", 50), kMinPriority);
  EXPECT_EQ(kMaxPriority - kMinPriority + 1, 1024);  // the Sieve's lane bound, exactly
}

TEST(LinkPriority, ABadRegexNamesTheFlag) {
  CrawlOptions options;
  options.defer = {"(unclosed"};
  absl::StatusOr<LinkPriority> rules = LinkPriority::Create(options);
  ASSERT_FALSE(rules.ok());
  EXPECT_NE(rules.status().message().find("--defer: bad regex '(unclosed'"), std::string::npos)
      << rules.status();
}

}  // namespace
}  // namespace crawler
