// The tokenizer through a recording handler: which records a file yields,
// in which order, with which values.
#include <string>
#include <string_view>
#include <vector>

#include "crawler/robots.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

using ::testing::ElementsAre;

// Records every call as "line:kind:value".
class Recorder : public RobotsParseHandler {
 public:
  void HandleRobotsStart() override { events.push_back("start"); }
  void HandleRobotsEnd() override { events.push_back("end"); }
  void HandleUserAgent(int line, std::string_view token) override { Add(line, "agent", token); }
  void HandleAllow(int line, std::string_view value) override { Add(line, "allow", value); }
  void HandleDisallow(int line, std::string_view value) override { Add(line, "disallow", value); }
  void HandleSitemap(int line, std::string_view value) override { Add(line, "sitemap", value); }
  void HandleCrawlDelay(int line, std::string_view value) override { Add(line, "delay", value); }
  void HandleUnknown(int line, std::string_view key, std::string_view value) override {
    Add(line, "unknown " + std::string(key), value);
  }
  std::vector<std::string> events;

 private:
  void Add(int line, const std::string& kind, std::string_view value) {
    events.push_back(std::to_string(line) + ":" + kind + ":" + std::string(value));
  }
};

std::vector<std::string> Parse(std::string_view text, size_t max_bytes = kRobotsMaxBytes) {
  Recorder recorder;
  ParseRobotsTxt(text, recorder, max_bytes);
  return recorder.events;
}

TEST(RobotsParserRfc2_1, KeysAreCaseInsensitiveAndValuesTrimmed) {
  EXPECT_THAT(Parse("  USER-agent :  Bot  \n\tdisALLOW\t:\t/x  \nALLOW:/y"),
              ElementsAre("start", "1:agent:Bot", "2:disallow:/x", "3:allow:/y", "end"));
}

TEST(RobotsParserRfc2_1, LineEndsAreLfCrAndCrlf) {
  EXPECT_THAT(Parse("Allow: /a\rAllow: /b\r\nAllow: /c\nAllow: /d"),
              ElementsAre("start", "1:allow:/a", "2:allow:/b", "3:allow:/c", "4:allow:/d", "end"));
}

TEST(RobotsParserRfc2_1, BlankLinesCountButYieldNothing) {
  EXPECT_THAT(Parse("\n\nAllow: /a\n\r\n"), ElementsAre("start", "3:allow:/a", "end"));
}

TEST(RobotsParserRfc2_2_3, HashStartsACommentAnywhere) {
  EXPECT_THAT(Parse("# all\nDisallow: /a#b # c\nUser-agent: * # everyone\n"),
              ElementsAre("start", "2:disallow:/a", "3:agent:*", "end"));
}

TEST(RobotsParserRfc2_2_1, ProductTokenIsTheLeadingTokenRun) {
  EXPECT_THAT(Parse("User-agent: Example_Bot-2/1.0\nUser-agent: *\nUser-agent: *x\n"
                    "User-agent:\nUser-agent: /weird\n"),
              ElementsAre("start", "1:agent:Example_Bot-", "2:agent:*",
                          "3:agent:", "4:agent:", "5:agent:", "end"));
}

TEST(RobotsParserRfc2_2_4, OtherRecordsAreReported) {
  EXPECT_THAT(Parse("Sitemap: https://a.example/s.xml\nCrawl-delay: 2.5\nHost: a.example\n"),
              ElementsAre("start", "1:sitemap:https://a.example/s.xml", "2:delay:2.5",
                          "3:unknown Host:a.example", "end"));
}

TEST(RobotsParserRfc2_3_1_5, LinesThatDoNotParseAreIgnored) {
  EXPECT_THAT(Parse("just words here\n:/x\nnocolon\n"), ElementsAre("start", "end"));
}

// Our choice, after google/robotstxt: the forgiving readings below only ever
// make the crawler more careful.
TEST(RobotsParserOurChoice, MissingColonReadAsKeyValueWhenTwoWords) {
  EXPECT_THAT(Parse("Disallow /x\nDisallow /x /y\n"), ElementsAre("start", "1:disallow:/x", "end"));
}

TEST(RobotsParserOurChoice, CommonMisspellingsAccepted) {
  EXPECT_THAT(
      Parse("Useragent: a\nDisalow: /1\nDissallow: /2\nSite-map: s\n"),
      ElementsAre("start", "1:agent:a", "2:disallow:/1", "3:disallow:/2", "4:sitemap:s", "end"));
}

TEST(RobotsParserOurChoice, LeadingUtf8BomSkipped) {
  EXPECT_THAT(Parse("\xEF\xBB\xBFUser-agent: a\n"), ElementsAre("start", "1:agent:a", "end"));
}

TEST(RobotsParserRfc2_5, BytesPastTheLimitIgnoredAndACutLineDropped) {
  const std::string text = "Disallow: /a\nDisallow: /bbbbbb\nDisallow: /c\n";
  // The limit falls inside the second line: it is dropped, not read as "/bb".
  EXPECT_THAT(Parse(text, 16), ElementsAre("start", "1:disallow:/a", "end"));
  // The limit falls exactly at a line end: the line is whole.
  EXPECT_THAT(Parse(text, 12), ElementsAre("start", "1:disallow:/a", "end"));
  EXPECT_THAT(Parse(text, 5), ElementsAre("start", "end"));
}

TEST(RobotsParserRfc2_5, ParsesAtLeast500KiB) {
  std::string text;
  while (text.size() < 510 * 1000) text += "# padding padding padding padding padding\n";
  text += "Disallow: /deep\n";
  ASSERT_LT(text.size(), kRobotsMaxBytes);
  EXPECT_EQ(Parse(text).size(), 3u);
  std::string too_big = std::string(kRobotsMaxBytes, '#') + "\nDisallow: /past\n";
  EXPECT_THAT(Parse(too_big), ElementsAre("start", "end"));
}

TEST(RobotsProductTokenTest, TakesTheLeadingToken) {
  EXPECT_EQ(RobotsProductToken("crawl/0.1 (+https://x.example)"), "crawl");
  EXPECT_EQ(RobotsProductToken("  My_Bot-X"), "My_Bot-X");
  EXPECT_EQ(RobotsProductToken("/0.1"), "");
}

}  // namespace
}  // namespace crawler
