// RobotsRules: each test is named after its source of truth, an RFC 9309
// section or our own choice where the RFC leaves room.
#include <string>
#include <string_view>

#include "crawler/robots.h"
#include "crawler/url.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

bool Allowed(std::string_view robots_txt, std::string_view url, std::string_view agent = "bot") {
  absl::StatusOr<Url> parsed = Url::Parse(url);
  EXPECT_TRUE(parsed.ok()) << url;
  return RobotsRules::Parse(robots_txt, agent).IsAllowed(*parsed);
}

TEST(RobotsRulesRfc2_2_1, OwnGroupReplacesStarEvenWhenEmpty) {
  const char kTxt[] = "User-agent: *\nDisallow: /\n\nUser-agent: bot\n";
  EXPECT_TRUE(Allowed(kTxt, "http://a.example/x"));
  EXPECT_FALSE(Allowed(kTxt, "http://a.example/x", "other"));
}

TEST(RobotsRulesRfc2_2_1, GroupsOfTheSameAgentMerge) {
  const char kTxt[] =
      "User-agent: bot\nDisallow: /a\nUser-agent: x\nDisallow: /\n"
      "User-agent: BOT\nAllow: /a/b\n";
  EXPECT_FALSE(Allowed(kTxt, "http://a.example/a/c"));
  EXPECT_TRUE(Allowed(kTxt, "http://a.example/a/b"));
  EXPECT_TRUE(Allowed(kTxt, "http://a.example/z"));
}

TEST(RobotsRulesRfc2_2_2, LongestMatchWinsAllowWinsTies) {
  EXPECT_TRUE(Allowed("User-agent: *\nDisallow: /p\nAllow: /p\n", "http://a.example/p"));
  EXPECT_FALSE(Allowed("User-agent: *\nAllow: /p\nDisallow: /pa\n", "http://a.example/page"));
  EXPECT_TRUE(Allowed("User-agent: *\nDisallow: /pa\nAllow: /pag\n", "http://a.example/page"));
}

TEST(RobotsRulesRfc2_2_2, RobotsTxtAlwaysAllowed) {
  const RobotsRules rules = RobotsRules::DisallowAll();
  EXPECT_TRUE(rules.IsAllowedPath("/robots.txt"));
  EXPECT_FALSE(rules.IsAllowedPath("/robots.txt.bak"));
  EXPECT_FALSE(rules.IsAllowedPath("/"));
}

TEST(RobotsRulesRfc2_2_2, UnreservedEscapesDecodedReservedKept) {
  EXPECT_FALSE(Allowed("User-agent: *\nDisallow: /~a\n", "http://a.example/%7ea"));
  EXPECT_FALSE(Allowed("User-agent: *\nDisallow: /%7Ea\n", "http://a.example/~a"));
  EXPECT_TRUE(Allowed("User-agent: *\nDisallow: /a/b\n", "http://a.example/a%2fb"));
  EXPECT_FALSE(Allowed("User-agent: *\nDisallow: /a%2fb\n", "http://a.example/a%2Fb"));
}

TEST(RobotsRulesRfc2_2_2, NonAsciiRuleMatchesItsUtf8Escapes) {
  EXPECT_FALSE(Allowed("User-agent: *\nDisallow: /\xC3\xBC\n", "http://a.example/%C3%BC"));
  EXPECT_FALSE(Allowed("User-agent: *\nDisallow: /\xC3\xBC\n", "http://a.example/\xC3\xBC"));
}

TEST(RobotsRulesRfc2_2_3, WildcardAndEndAnchor) {
  const char kTxt[] = "User-agent: *\nDisallow: /*/x*.gif$\n";
  EXPECT_FALSE(Allowed(kTxt, "http://a.example/a/b/x1.gif"));
  EXPECT_TRUE(Allowed(kTxt, "http://a.example/a/b/x1.gif?v=2"));
  EXPECT_TRUE(Allowed(kTxt, "http://a.example/x1.gif"));
  EXPECT_FALSE(Allowed(kTxt, "http://a.example/a/x.gif.gif"));
}

TEST(RobotsRulesRfc2_2_3, EscapedStarAndDollarAreLiterals) {
  const char kTxt[] = "User-agent: *\nDisallow: /a%2Ab%24\n";
  EXPECT_FALSE(Allowed(kTxt, "http://a.example/a*b$"));
  EXPECT_TRUE(Allowed(kTxt, "http://a.example/axb"));
}

TEST(RobotsRulesOurChoice, DollarInsideAPatternIsLiteral) {
  EXPECT_FALSE(Allowed("User-agent: *\nDisallow: /a$b\n", "http://a.example/a$bc"));
}

TEST(RobotsRulesOurChoice, EscapedStarInUrlEqualsLiteralStar) {
  // %2A and * both canonicalize to a literal '*' (RFC 9309 figure 6, applied
  // to both sides so the comparison is symmetric).
  EXPECT_FALSE(Allowed("User-agent: *\nDisallow: /a*b%2A\n", "http://a.example/a-b%2a"));
}

TEST(RobotsRulesRfc2_2_4, CrawlDelayOfTheChosenGroupAndAllSitemaps) {
  const char kTxt[] =
      "Sitemap: https://a.example/1.xml\nUser-agent: *\nCrawl-delay: 9\n"
      "User-agent: bot\nCrawl-delay: 1.5\nSitemap: https://a.example/2.xml\n"
      "Crawl-delay: nonsense\n";
  const RobotsRules ours = RobotsRules::Parse(kTxt, "bot/2.0");
  ASSERT_TRUE(ours.crawl_delay().has_value());
  EXPECT_DOUBLE_EQ(*ours.crawl_delay(), 1.5);
  ASSERT_EQ(ours.sitemaps().size(), 2u);
  EXPECT_EQ(ours.sitemaps()[1], "https://a.example/2.xml");
  EXPECT_DOUBLE_EQ(RobotsRules::Parse(kTxt, "other").crawl_delay().value_or(-1), 9);
  EXPECT_FALSE(RobotsRules::Parse("User-agent: *\n", "x").crawl_delay().has_value());
}

TEST(RobotsRulesPerformance, ManyRulesManyUrlsStayCheap) {
  std::string txt = "User-agent: *\n";
  for (int i = 0; i < 1000; ++i) txt += "Disallow: /dir" + std::to_string(i) + "/*.php$\n";
  const RobotsRules rules = RobotsRules::Parse(txt, "bot");
  ASSERT_EQ(rules.rule_count(), 1000u);
  int allowed = 0;
  for (int i = 0; i < 2000; ++i) {
    allowed += rules.IsAllowedPath("/dir" + std::to_string(i) + "/page.php") ? 1 : 0;
  }
  EXPECT_EQ(allowed, 1000);  // dir0..dir999 are disallowed, dir1000.. allowed
}

}  // namespace
}  // namespace crawler
