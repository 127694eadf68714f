// The options copy a checkpoint stores: written with CrawlOptionsToToml, read
// back with LoadConfigFile, it must give the same options (our own choice of
// format, so the round trip is the source of truth), and DiffCrawlOptions
// must name exactly the flags that differ.
#include "crawler/options_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "crawler/cli.h"
#include "crawler/config/temp_files.h"

namespace crawler {
namespace {

using ::testing::IsEmpty;

CrawlOptions Unusual() {
  CrawlOptions o;
  o.seeds_file = "seeds \"quoted\".txt";
  o.fp_rate = 0.0123456789;
  o.expected = 123'457;
  o.max_depth = 3;
  o.scope = Scope::kDomain;
  o.allow = {"^https://a\\.example/", "x'y"};
  o.deny = {};
  o.delay_s = 0.2;
  o.timeout_s = 12.345678;
  o.queue_memory = (3u << 20) + 1;
  o.robots = false;
  o.overflow = "warn";
  o.filter_memory_max = 3u << 20;
  o.out_dir = "/tmp/out dir";
  o.state_dir = "/tmp/out dir/state";
  o.spill_dir = "/tmp/out dir/spill";
  o.checkpoint_every_s = 0.25;
  return o;
}

TEST(OptionsText, TomlRoundTripGivesTheSameOptions) {
  testing::TempDir dir;
  for (const CrawlOptions& options : {CrawlOptions{}, Unusual()}) {
    const std::string path = dir.Write("options.toml", CrawlOptionsToToml(options));
    absl::StatusOr<CrawlOptions> loaded = LoadConfigFile(path, CrawlOptions{});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    loaded->config_file.clear();
    EXPECT_THAT(DiffCrawlOptions(options, *loaded), IsEmpty()) << CrawlOptionsToToml(options);
    EXPECT_EQ(*loaded, options);
  }
}

TEST(OptionsText, DiffNamesEachChangedFlagWithBothValues) {
  CrawlOptions a;
  CrawlOptions b;
  b.delay_s = 0.5;
  b.max_body = 1 << 20;
  b.config_file = "ignored.toml";  // not an option of the table
  const std::vector<OptionDifference> diff = DiffCrawlOptions(a, b);
  ASSERT_EQ(diff.size(), 2u);
  EXPECT_EQ(diff[0].flag, "delay");
  EXPECT_EQ(diff[0].first, "1s");
  EXPECT_EQ(diff[0].second, "500ms");
  EXPECT_EQ(diff[1].flag, "max-body");
  EXPECT_EQ(diff[1].second, "1MiB");
}

TEST(OptionsText, ParseOnTopOfABaseKeepsWhatIsNotGiven) {
  CrawlOptions base = Unusual();
  const char* argv[] = {"--max-pages", "7"};
  absl::StatusOr<ParsedCommand> command = ParseCrawlCommand(2, argv, base);
  ASSERT_TRUE(command.ok()) << command.status();
  base.max_pages = 7;
  const std::vector<OptionDifference> diff = DiffCrawlOptions(base, command->options);
  EXPECT_THAT(diff, IsEmpty());
  EXPECT_EQ(DiffCrawlOptions(Unusual(), command->options).size(), 1u);
}

}  // namespace
}  // namespace crawler
