// crawl.toml: the shipped file equals the built-in defaults, every key and
// value form loads, and each bad input is an error naming the key and file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "crawler/config/config_text.h"
#include "crawler/config/temp_files.h"
#include "crawler/options.h"

namespace crawler {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kShippedConfig = std::string(CRAWL_SOURCE_DIR) + "/config/crawl.toml";

using testing::ErrorOf;
using testing::LoadText;

TEST(ShippedConfig, EqualsTheBuiltInDefaultsFieldByField) {
  absl::StatusOr<CrawlOptions> loaded = LoadConfigFile(kShippedConfig, CrawlOptions{});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const CrawlOptions defaults;
  EXPECT_EQ(loaded->config_file, kShippedConfig);
  CrawlOptions compared = *loaded;
  compared.config_file.clear();
  // Field by field first, so a mismatch names the field.
  EXPECT_EQ(compared.seeds_file, defaults.seeds_file);
  EXPECT_EQ(compared.strict, defaults.strict);
  EXPECT_EQ(compared.expected, defaults.expected);
  EXPECT_EQ(compared.fp_rate, defaults.fp_rate);
  EXPECT_EQ(compared.max_pages, defaults.max_pages);
  EXPECT_EQ(compared.max_pages_per_host, defaults.max_pages_per_host);
  EXPECT_EQ(compared.max_depth, defaults.max_depth);
  EXPECT_EQ(compared.scope, defaults.scope);
  EXPECT_EQ(compared.allow, defaults.allow);
  EXPECT_EQ(compared.deny, defaults.deny);
  EXPECT_EQ(compared.ignore_nofollow, defaults.ignore_nofollow);
  EXPECT_EQ(compared.max_url_length, defaults.max_url_length);
  EXPECT_EQ(compared.threads, defaults.threads);
  EXPECT_EQ(compared.fetch_threads, defaults.fetch_threads);
  EXPECT_EQ(compared.connections, defaults.connections);
  EXPECT_EQ(compared.per_host, defaults.per_host);
  EXPECT_EQ(compared.delay_s, defaults.delay_s);
  EXPECT_EQ(compared.user_agent, defaults.user_agent);
  EXPECT_EQ(compared.timeout_s, defaults.timeout_s);
  EXPECT_EQ(compared.connect_timeout_s, defaults.connect_timeout_s);
  EXPECT_EQ(compared.max_body, defaults.max_body);
  EXPECT_EQ(compared.max_redirects, defaults.max_redirects);
  EXPECT_EQ(compared.retries, defaults.retries);
  EXPECT_EQ(compared.robots, defaults.robots);
  EXPECT_EQ(compared.block_private, defaults.block_private);
  EXPECT_EQ(compared.queue_memory, defaults.queue_memory);
  EXPECT_EQ(compared.spill_dir, defaults.spill_dir);
  EXPECT_EQ(compared.overflow, defaults.overflow);
  EXPECT_EQ(compared.out_dir, defaults.out_dir);
  EXPECT_EQ(compared.state_dir, defaults.state_dir);
  EXPECT_EQ(compared.resume, defaults.resume);
  EXPECT_EQ(compared.fresh, defaults.fresh);
  EXPECT_EQ(compared.checkpoint_every_s, defaults.checkpoint_every_s);
  EXPECT_EQ(compared.log_level, defaults.log_level);
  EXPECT_EQ(compared.quiet, defaults.quiet);
  // Then as a whole, which also covers fields added later.
  EXPECT_TRUE(compared == defaults);
}

TEST(ShippedConfig, SetsEveryKeyOverNonDefaultValues) {
  // If crawl.toml left a key out, loading it over changed values would keep
  // the change: every field must come back to its default.
  CrawlOptions changed;
  changed.seeds_file = "x";
  changed.strict = true;
  changed.expected = 7;
  changed.fp_rate = 0.5;
  changed.max_pages = 7;
  changed.max_pages_per_host = 7;
  changed.max_depth = 7;
  changed.scope = Scope::kAny;
  changed.allow = {"a"};
  changed.deny = {"d"};
  changed.ignore_nofollow = true;
  changed.max_url_length = 77;
  changed.threads = 7;
  changed.fetch_threads = 7;
  changed.connections = 7;
  changed.per_host = 7;
  changed.delay_s = 7;
  changed.user_agent = "x";
  changed.timeout_s = 7;
  changed.connect_timeout_s = 7;
  changed.max_body = 7;
  changed.max_redirects = 7;
  changed.retries = 7;
  changed.robots = false;
  changed.block_private = "on";
  changed.queue_memory = 7;
  changed.spill_dir = "x";
  changed.overflow = "warn";
  changed.filter_memory_max = 7;
  changed.out_dir = "x";
  changed.state_dir = "x";
  changed.resume = true;
  changed.fresh = true;
  changed.checkpoint_every_s = 7;
  changed.log_level = "off";
  changed.quiet = true;
  changed.frontier = "redis://127.0.0.1:6379/crawl";
  absl::StatusOr<CrawlOptions> loaded = LoadConfigFile(kShippedConfig, changed);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  CrawlOptions expected;
  expected.config_file = kShippedConfig;
  EXPECT_TRUE(*loaded == expected);
}

TEST(LoadConfigFile, ReadsEveryKeyInEveryForm) {
  testing::TempDir dir;
  absl::StatusOr<CrawlOptions> loaded = LoadText(dir, R"(
[seeds]
file = "my-seeds.txt"
strict = true
[crawl]
expected = "1e9"
fp_rate = 0.001
max_pages = 1_000
max_pages_per_host = "50"
max_depth = 3
scope = "domain"
allow = ["^https://a\\.example/", "b"]
deny = ["\\.pdf$"]
ignore_nofollow = true
max_url_length = 4096
[fetch]
threads = 8
fetch_threads = 3
connections = 200
per_host = 4
delay = "200ms"
user_agent = "test-bot/1.0"
timeout = 12
connect_timeout = 2.5
max_body = "1MiB"
max_redirects = 0
retries = 9
robots = false
block_private = "off"
[queue]
memory = 1048576
spill_dir = "/tmp/spill"
overflow = "warn"
filter_memory_max = "1MiB"
[output]
dir = "out"
[state]
dir = "st"
resume = true
fresh = false
checkpoint_every = "2m"
[log]
level = "debug"
quiet = true
)");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->seeds_file, "my-seeds.txt");
  EXPECT_TRUE(loaded->strict);
  EXPECT_EQ(loaded->expected, 1'000'000'000u);
  EXPECT_EQ(loaded->fp_rate, 0.001);
  EXPECT_EQ(loaded->max_pages, 1000u);
  EXPECT_EQ(loaded->max_pages_per_host, 50u);
  EXPECT_EQ(loaded->max_depth, 3);
  EXPECT_EQ(loaded->scope, Scope::kDomain);
  EXPECT_THAT(loaded->allow, ElementsAre("^https://a\\.example/", "b"));
  EXPECT_THAT(loaded->deny, ElementsAre("\\.pdf$"));
  EXPECT_TRUE(loaded->ignore_nofollow);
  EXPECT_EQ(loaded->max_url_length, 4096u);
  EXPECT_EQ(loaded->threads, 8);
  EXPECT_EQ(loaded->fetch_threads, 3);
  EXPECT_EQ(loaded->connections, 200);
  EXPECT_EQ(loaded->per_host, 4);
  EXPECT_EQ(loaded->delay_s, 0.2);
  EXPECT_EQ(loaded->user_agent, "test-bot/1.0");
  EXPECT_EQ(loaded->timeout_s, 12.0);
  EXPECT_EQ(loaded->connect_timeout_s, 2.5);
  EXPECT_EQ(loaded->max_body, 1u << 20);
  EXPECT_EQ(loaded->max_redirects, 0);
  EXPECT_EQ(loaded->retries, 9);
  EXPECT_FALSE(loaded->robots);
  EXPECT_EQ(loaded->block_private, "off");
  EXPECT_EQ(loaded->queue_memory, 1048576u);
  EXPECT_EQ(loaded->spill_dir, "/tmp/spill");
  EXPECT_EQ(loaded->overflow, "warn");
  EXPECT_EQ(loaded->filter_memory_max, 1u << 20);
  EXPECT_EQ(loaded->out_dir, "out");
  EXPECT_EQ(loaded->state_dir, "st");
  EXPECT_TRUE(loaded->resume);
  EXPECT_FALSE(loaded->fresh);
  EXPECT_EQ(loaded->checkpoint_every_s, 120.0);
  EXPECT_EQ(loaded->log_level, "debug");
  EXPECT_TRUE(loaded->quiet);
}

TEST(LoadConfigFile, KeysAbsentFromTheFileKeepTheBaseValues) {
  testing::TempDir dir;
  CrawlOptions base;
  base.threads = 7;
  base.user_agent = "base-agent";
  absl::StatusOr<CrawlOptions> loaded =
      LoadConfigFile(dir.Write("part.toml", "[fetch]\nthreads = 3\n"), base);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->threads, 3);
  EXPECT_EQ(loaded->user_agent, "base-agent");
}

TEST(LoadConfigFile, ScientificFloatCountsAreAcceptedWhenWhole) {
  testing::TempDir dir;
  absl::StatusOr<CrawlOptions> loaded = LoadText(dir, "[crawl]\nexpected = 1e9\n");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->expected, 1'000'000'000u);
  EXPECT_EQ(ErrorOf(dir, "[crawl]\nexpected = 2.5\n"),
            "crawl.toml: crawl.expected: 2.5 is not a whole number (line 2)");
}

TEST(LoadConfigFile, UnknownKeysNameTheKeyAndTheFile) {
  testing::TempDir dir;
  EXPECT_EQ(ErrorOf(dir, "[fetch]\nfoo = 1\n"), "crawl.toml: unknown key 'fetch.foo' (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[fetc]\nthreads = 1\n"), "crawl.toml: unknown key 'fetc' (line 1)");
  EXPECT_EQ(ErrorOf(dir, "threads = 1\n"), "crawl.toml: unknown key 'threads' (line 1)");
  EXPECT_EQ(ErrorOf(dir, "fetch = 1\n"),
            "crawl.toml: fetch: expected a table, got an integer (line 1)");
  // A key of the right name in the wrong section is still unknown.
  EXPECT_EQ(ErrorOf(dir, "[crawl]\nthreads = 1\n"),
            "crawl.toml: unknown key 'crawl.threads' (line 2)");
}

TEST(LoadConfigFile, WrongTypesNameTheKeyAndTheFile) {
  testing::TempDir dir;
  EXPECT_EQ(ErrorOf(dir, "[fetch]\nthreads = \"many\"\n"),
            "crawl.toml: fetch.threads: 'many' is not a count (e.g. 1000000, 1_000_000, 1e6) "
            "(line 2)");
  EXPECT_EQ(ErrorOf(dir, "[fetch]\nthreads = true\n"),
            "crawl.toml: fetch.threads: expected a count (integer or string like \"1e9\"), got a "
            "boolean (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[fetch]\nrobots = \"on\"\n"),
            "crawl.toml: fetch.robots: expected true or false, got a string (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[crawl]\nallow = \"x\"\n"),
            "crawl.toml: crawl.allow: expected an array of strings, got a string (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[crawl]\nallow = [\"x\", 3]\n"),
            "crawl.toml: crawl.allow: expected an array of strings, got an integer (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[fetch]\nuser_agent = 3\n"),
            "crawl.toml: fetch.user_agent: expected a string, got an integer (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[fetch]\ntimeout = 1979-05-27\n"),
            "crawl.toml: fetch.timeout: expected a duration (seconds or string like \"200ms\"), "
            "got a date or time (line 2)");
}

TEST(LoadConfigFile, BadValuesNameTheKeyTheValueAndTheFile) {
  testing::TempDir dir;
  EXPECT_EQ(ErrorOf(dir, "[crawl]\nfp_rate = 1.5\n"),
            "crawl.toml: crawl.fp_rate: 1.5 is not in (0, 1) (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[crawl]\nfp_rate = 0\n"),
            "crawl.toml: crawl.fp_rate: 0 is not in (0, 1) (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[crawl]\nexpected = 0\n"),
            "crawl.toml: crawl.expected: 0 must be at least 1 (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[crawl]\nmax_pages = -1\n"),
            "crawl.toml: crawl.max_pages: -1 is negative (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[crawl]\nmax_depth = -2\n"),
            "crawl.toml: crawl.max_depth: -2 is not in [-1, 2147483647] (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[crawl]\nscope = \"world\"\n"),
            "crawl.toml: crawl.scope: 'world' is not a scope (host, domain or any) (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[crawl]\ndeny = [\"(\"]\n"),
            "crawl.toml: crawl.deny: '(' is not a valid RE2 pattern: missing ): ( (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[fetch]\nthreads = 0\n"),
            "crawl.toml: fetch.threads: 0 is not in [1, 1024] (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[fetch]\ntimeout = 0\n"),
            "crawl.toml: fetch.timeout: 0 must be greater than 0 (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[fetch]\ndelay = -1\n"),
            "crawl.toml: fetch.delay: -1 is negative (line 2)");
  EXPECT_EQ(
      ErrorOf(dir, "[fetch]\ndelay = \"1 day\"\n"),
      "crawl.toml: fetch.delay: '1 day' is not a duration (e.g. 200ms, 1s, 1.5, 2m) (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[fetch]\nmax_body = \"10 potatoes\"\n"),
            "crawl.toml: fetch.max_body: '10 potatoes' is not a size (e.g. 1048576, 64MiB, 10MB) "
            "(line 2)");
  EXPECT_EQ(ErrorOf(dir, "[fetch]\nblock_private = \"maybe\"\n"),
            "crawl.toml: fetch.block_private: 'maybe' is not one of auto|on|off (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[fetch]\nuser_agent = \"\"\n"),
            "crawl.toml: fetch.user_agent: must not be empty (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[fetch]\nuser_agent = \"a\\r\\nX: y\"\n"),
            "crawl.toml: fetch.user_agent: 'a\\r\\nX: y' contains a control character (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[queue]\noverflow = \"explode\"\n"),
            "crawl.toml: queue.overflow: 'explode' is not one of grow|warn (line 2)");
  EXPECT_EQ(ErrorOf(dir, "[log]\nlevel = \"loud\"\n"),
            "crawl.toml: log.level: 'loud' is not one of trace|debug|info|warn|error|off (line 2)");
}

TEST(LoadConfigFile, SyntaxErrorsGiveFileLineAndColumn) {
  testing::TempDir dir;
  EXPECT_THAT(ErrorOf(dir, "[fetch]\nthreads = = 3\n"), StartsWith("crawl.toml:2:"));
  EXPECT_THAT(ErrorOf(dir, "[fetch]\nthreads = = 3\n"), HasSubstr("invalid TOML"));
  EXPECT_THAT(ErrorOf(dir, "[fetch]\nthreads = 1\nthreads = 2\n"), StartsWith("crawl.toml:3:"));
}

TEST(LoadConfigFile, MissingOrUnreadableFileIsAnErrorNamingIt) {
  testing::TempDir dir;
  absl::StatusOr<CrawlOptions> missing = LoadConfigFile(dir.Path("nope.toml"), CrawlOptions{});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            dir.Path("nope.toml") + ": cannot read (No such file or directory)");
  absl::StatusOr<CrawlOptions> directory = LoadConfigFile(dir.Path(""), CrawlOptions{});
  ASSERT_FALSE(directory.ok());
  EXPECT_THAT(std::string(directory.status().message()), HasSubstr("it is a directory"));
}

TEST(LoadConfigFile, AnEmptyFileChangesNothing) {
  testing::TempDir dir;
  CrawlOptions base;
  base.threads = 5;
  absl::StatusOr<CrawlOptions> loaded = LoadConfigFile(dir.Write("empty.toml", ""), base);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  base.config_file = dir.Path("empty.toml");
  EXPECT_TRUE(*loaded == base);
}

TEST(ValidateCrawlOptions, ChecksFieldsBuiltInCodeAndCombinations) {
  CrawlOptions options;
  options.seeds_file = "seeds.txt";
  EXPECT_TRUE(ValidateCrawlOptions(options).ok());
  options.fp_rate = 2;
  EXPECT_EQ(ValidateCrawlOptions(options).message(), "--fp-rate: 2 is not in (0, 1)");
  options.fp_rate = 0.01;
  options.deny = {"[z-a]"};
  EXPECT_THAT(std::string(ValidateCrawlOptions(options).message()),
              StartsWith("--deny: '[z-a]' is not a valid"));
  options.deny.clear();
  options.resume = options.fresh = true;
  EXPECT_THAT(std::string(ValidateCrawlOptions(options).message()),
              HasSubstr("--resume and --fresh"));
  options.resume = options.fresh = false;
  options.seeds_file.clear();
  EXPECT_THAT(std::string(ValidateCrawlOptions(options).message()), StartsWith("--seeds: missing"));
  options.resume = true;  // a resumed crawl takes its queue from the checkpoint
  EXPECT_TRUE(ValidateCrawlOptions(options).ok());
}

TEST(Scope, NamesRoundTrip) {
  for (Scope scope : {Scope::kHost, Scope::kDomain, Scope::kAny}) {
    absl::StatusOr<Scope> parsed = ParseScope(ScopeName(scope));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, scope);
  }
  EXPECT_FALSE(ParseScope("Host").ok());
}

}  // namespace
}  // namespace crawler
