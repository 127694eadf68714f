// OptionsAsLines: one "flag: value" line per option, values as flags take
// them, so the listing (the WARC warcinfo's options) can be read back.
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "crawler/cli.h"
#include "crawler/options.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

using ::testing::Contains;

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

TEST(OptionsAsLines, EveryDefaultAsTheFlagWritesIt) {
  const std::vector<std::string> lines = Lines(OptionsAsLines(CrawlOptions{}));
  EXPECT_THAT(lines, Contains("max-body: 10MiB"));
  EXPECT_THAT(lines, Contains("robots: on"));
  EXPECT_THAT(lines, Contains("delay: 1s"));
  EXPECT_THAT(lines, Contains("scope: host"));
  EXPECT_THAT(lines, Contains("warc: "));
  EXPECT_THAT(lines, Contains("warc-max-size: 1GiB"));
  for (const std::string& line : lines) EXPECT_NE(line.find(": "), std::string::npos) << line;
}

TEST(OptionsAsLines, ALineBreakInAValueCannotStartAnotherField) {
  CrawlOptions options;
  options.user_agent = "bot\r\nWARC-Type: response";
  options.deny = {"a", "b"};
  const std::vector<std::string> lines = Lines(OptionsAsLines(options));
  EXPECT_THAT(lines, Contains("user-agent: bot WARC-Type: response"));
  EXPECT_THAT(lines, Contains("deny: a b"));
  for (const std::string& line : lines) EXPECT_FALSE(line.starts_with("WARC-Type")) << line;
}

// A proxy's USER:PASS and header values (an Authorization) stay
// out of the warcinfo record.
TEST(OptionsAsLines, ProxyAndHeadersAreRedacted) {
  CrawlOptions options;
  options.proxy = "http://me:secret@proxy:3128";
  options.headers = {"Authorization: Bearer tok"};
  const std::string text = OptionsAsLines(options);
  const std::vector<std::string> lines = Lines(text);
  EXPECT_THAT(lines, Contains("proxy: [redacted]"));
  EXPECT_THAT(lines, Contains("header: [redacted]"));
  EXPECT_EQ(text.find("secret"), std::string::npos);
  EXPECT_EQ(text.find("tok"), std::string::npos);
  EXPECT_THAT(Lines(OptionsAsLines(CrawlOptions{})), Contains("proxy: "));
}

TEST(OptionsAsLines, ParsedFlagsComeBackAsGiven) {
  const char* argv[] = {"--seeds", "s.txt", "--warc", "out/a", "--warc-max-size", "5MiB"};
  absl::StatusOr<ParsedCommand> parsed = ParseCrawlCommand(6, argv);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const std::vector<std::string> lines = Lines(OptionsAsLines(parsed->options));
  EXPECT_THAT(lines, Contains("warc: out/a"));
  EXPECT_THAT(lines, Contains("warc-max-size: 5MiB"));
  EXPECT_THAT(lines, Contains("seeds: s.txt"));
}

}  // namespace
}  // namespace crawler
