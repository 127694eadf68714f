// [[priority]] in crawl.toml, and --prefer / --defer / --depth-priority: every
// form loads, the shipped file's commented example stays a comment, each bad
// input is an error naming the file, the table and the key, and priorities
// with a shared (Redis) frontier are refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "crawler/cli.h"
#include "crawler/config/config_text.h"
#include "crawler/config/temp_files.h"
#include "crawler/options.h"

namespace crawler {
namespace {

using ::testing::HasSubstr;

using testing::ErrorOf;
using testing::LoadText;

TEST(PriorityRules, LoadsEveryFormInFileOrder) {
  testing::TempDir dir;
  absl::StatusOr<CrawlOptions> loaded = LoadText(dir, R"(
[crawl]
prefer = ["/docs/"]
defer = ["/archive/", "\\?page="]
depth_priority = 1

[[priority]]
url = "/news/"
delta = 20

[[priority]]
host = "*.cdn.example"
delta = -50

[[priority]]
url = "lang=en"
host = "https://a.example"
delta = 3
)");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->prefer, (std::vector<std::string>{"/docs/"}));
  EXPECT_EQ(loaded->defer, (std::vector<std::string>{"/archive/", "\\?page="}));
  EXPECT_EQ(loaded->depth_priority, 1);
  ASSERT_EQ(loaded->priorities.size(), 3u);
  EXPECT_EQ(loaded->priorities[0], (PriorityRule{.url = "/news/", .host = "", .delta = 20}));
  EXPECT_EQ(loaded->priorities[1],
            (PriorityRule{.url = "", .host = "*.cdn.example", .delta = -50}));
  EXPECT_EQ(loaded->priorities[2],
            (PriorityRule{.url = "lang=en", .host = "https://a.example", .delta = 3}));
}

TEST(PriorityRules, ShippedFileHasNoActiveRules) {
  absl::StatusOr<CrawlOptions> loaded =
      LoadConfigFile(std::string(CRAWL_SOURCE_DIR) + "/config/crawl.toml", CrawlOptions{});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->priorities.empty());
  EXPECT_TRUE(loaded->prefer.empty());
  EXPECT_TRUE(loaded->defer.empty());
  EXPECT_EQ(loaded->depth_priority, 0);
}

TEST(PriorityRules, ErrorsNameFileTableAndKey) {
  testing::TempDir dir;
  EXPECT_THAT(ErrorOf(dir, "[[priority]]\nurl = \"a\"\nweight = 1\n"),
              HasSubstr("crawl.toml: unknown key 'priority[0].weight' (line 3)"));
  EXPECT_THAT(ErrorOf(dir, "[[priority]]\nurl = \"a\"\ndelta = 1\n[[priority]]\ndelta = 2\n"),
              HasSubstr("crawl.toml: priority[1]: needs 'url' or 'host'"));
  EXPECT_THAT(ErrorOf(dir, "[[priority]]\nurl = \"a\"\n"),
              HasSubstr("crawl.toml: priority[0]: missing key 'delta'"));
  EXPECT_THAT(ErrorOf(dir, "[[priority]]\nurl = \"a\"\ndelta = \"high\"\n"),
              HasSubstr("crawl.toml: priority[0].delta: expected an integer (line 3)"));
  EXPECT_THAT(ErrorOf(dir, "[[priority]]\nurl = \"a\"\ndelta = 5000\n"),
              HasSubstr("crawl.toml: priority[0].delta: 5000 is outside [-1000, 1000]"));
  EXPECT_THAT(ErrorOf(dir, "[[priority]]\nurl = \"(x\"\ndelta = 1\n"),
              HasSubstr("crawl.toml: priority[0].url: bad regex '(x'"));
  EXPECT_THAT(ErrorOf(dir, "priority = 3\n"),
              HasSubstr("crawl.toml: priority: expected an array of tables"));
  EXPECT_THAT(ErrorOf(dir, "[crawl]\ndepth_priority = 101\n"), HasSubstr("depth_priority"));
}

absl::StatusOr<ParsedCommand> ParsePriorityFlags(std::vector<std::string> args) {
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  return ParseCrawlCommand(static_cast<int>(argv.size()), argv.data());
}

TEST(PriorityRules, FlagsParseWithEitherFrontier) {
  absl::StatusOr<ParsedCommand> parsed =
      ParsePriorityFlags({"--prefer", "/a/", "--prefer", "/b/", "--defer", "/z/",
                          "--depth-priority", "-1", "https://a.example/"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->options.prefer, (std::vector<std::string>{"/a/", "/b/"}));
  EXPECT_EQ(parsed->options.defer, (std::vector<std::string>{"/z/"}));
  EXPECT_EQ(parsed->options.depth_priority, -1);
  // The shared frontier in Redis keeps priority lanes too (docs/redis.md).
  for (const std::string frontier :
       {"redis://127.0.0.1:6379/x", "redis-cluster://127.0.0.1:7000,127.0.0.1:7001/x"}) {
    absl::StatusOr<ParsedCommand> shared =
        ParsePriorityFlags({"--prefer", "/a/", "--frontier", frontier, "https://a.example/"});
    ASSERT_TRUE(shared.ok()) << frontier << ": " << shared.status();
    EXPECT_EQ(shared->options.prefer, (std::vector<std::string>{"/a/"}));
  }
  absl::StatusOr<ParsedCommand> bad = ParsePriorityFlags({"--prefer", "(x", "https://a.example/"});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("--prefer"));
}

}  // namespace
}  // namespace crawler
