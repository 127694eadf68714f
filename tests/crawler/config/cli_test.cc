// The crawl command line: every flag, both spellings, precedence over the
// --config file, and an error naming the flag for each bad input.
#include "crawler/cli.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "crawler/config/temp_files.h"

namespace crawler {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

absl::StatusOr<ParsedCommand> Parse(std::vector<std::string> args) {
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  return ParseCrawlCommand(static_cast<int>(argv.size()), argv.data());
}

CrawlOptions ParseOk(std::vector<std::string> args) {
  absl::StatusOr<ParsedCommand> command = Parse(std::move(args));
  EXPECT_TRUE(command.ok()) << command.status();
  if (!command.ok()) return CrawlOptions{};
  EXPECT_EQ(command->kind, ParsedCommand::kRun);
  return command->options;
}

std::string ParseError(std::vector<std::string> args) {
  absl::StatusOr<ParsedCommand> command = Parse(std::move(args));
  if (command.ok()) return "(parsed fine)";
  EXPECT_EQ(command.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(command.status().message());
}

TEST(ParseCrawlCommand, SeedsAloneGivesTheDefaultsWithDirectoriesResolved) {
  CrawlOptions options = ParseOk({"--seeds", "s.txt"});
  CrawlOptions expected;
  expected.seeds_file = "s.txt";
  expected.spill_dir = "crawl-out/spill";
  expected.state_dir = "crawl-out/state";
  EXPECT_TRUE(options == expected);
  EXPECT_EQ(options.config_file, "");
}

TEST(ParseCrawlCommand, EveryFlagWithASpaceSeparatedValue) {
  CrawlOptions o = ParseOk({"--seeds",
                            "s.txt",
                            "--expected",
                            "1e9",
                            "--fp-rate",
                            "0.001",
                            "--threads",
                            "8",
                            "--connections",
                            "300",
                            "--max-pages",
                            "1_000",
                            "--max-depth",
                            "4",
                            "--scope",
                            "domain",
                            "--allow",
                            "a",
                            "--deny",
                            "d",
                            "--user-agent",
                            "bot/2",
                            "--timeout",
                            "5s",
                            "--connect-timeout",
                            "500ms",
                            "--max-body",
                            "2MiB",
                            "--out",
                            "o",
                            "--log-level",
                            "warn",
                            "--max-url-length",
                            "100",
                            "--queue-memory",
                            "1GiB",
                            "--spill-dir",
                            "sp",
                            "--overflow",
                            "warn",
                            "--filter-memory-max",
                            "1GiB",
                            "--per-host",
                            "3",
                            "--delay",
                            "200ms",
                            "--robots",
                            "off",
                            "--max-redirects",
                            "7",
                            "--retries",
                            "0",
                            "--max-pages-per-host",
                            "10",
                            "--state",
                            "st",
                            "--checkpoint-every",
                            "2m",
                            "--block-private",
                            "on"});
  EXPECT_EQ(o.seeds_file, "s.txt");
  EXPECT_EQ(o.expected, 1'000'000'000u);
  EXPECT_EQ(o.fp_rate, 0.001);
  EXPECT_EQ(o.threads, 8);
  EXPECT_EQ(o.connections, 300);
  EXPECT_EQ(o.max_pages, 1000u);
  EXPECT_EQ(o.max_depth, 4);
  EXPECT_EQ(o.scope, Scope::kDomain);
  EXPECT_THAT(o.allow, ElementsAre("a"));
  EXPECT_THAT(o.deny, ElementsAre("d"));
  EXPECT_EQ(o.user_agent, "bot/2");
  EXPECT_EQ(o.timeout_s, 5.0);
  EXPECT_EQ(o.connect_timeout_s, 0.5);
  EXPECT_EQ(o.max_body, 2u << 20);
  EXPECT_EQ(o.out_dir, "o");
  EXPECT_EQ(o.log_level, "warn");
  EXPECT_EQ(o.max_url_length, 100u);
  EXPECT_EQ(o.queue_memory, 1u << 30);
  EXPECT_EQ(o.spill_dir, "sp");
  EXPECT_EQ(o.overflow, "warn");
  EXPECT_EQ(o.filter_memory_max, 1u << 30);
  EXPECT_EQ(o.per_host, 3);
  EXPECT_EQ(o.delay_s, 0.2);
  EXPECT_FALSE(o.robots);
  EXPECT_EQ(o.max_redirects, 7);
  EXPECT_EQ(o.retries, 0);
  EXPECT_EQ(o.max_pages_per_host, 10u);
  EXPECT_EQ(o.state_dir, "st");
  EXPECT_EQ(o.checkpoint_every_s, 120.0);
  EXPECT_EQ(o.block_private, "on");
}

TEST(ParseCrawlCommand, EveryFlagWithAnEqualsValue) {
  CrawlOptions o =
      ParseOk({"--seeds=s.txt", "--expected=5", "--fp-rate=0.5", "--threads=1", "--scope=any",
               "--robots=on", "--delay=0", "--user-agent=a=b", "--out=y", "--out=x"});
  EXPECT_EQ(o.seeds_file, "s.txt");
  EXPECT_EQ(o.expected, 5u);
  EXPECT_EQ(o.fp_rate, 0.5);
  EXPECT_EQ(o.threads, 1);
  EXPECT_EQ(o.scope, Scope::kAny);
  EXPECT_TRUE(o.robots);
  EXPECT_EQ(o.delay_s, 0.0);
  EXPECT_EQ(o.user_agent, "a=b");  // only the first '=' splits
  EXPECT_EQ(o.out_dir, "x");       // the last occurrence wins
  EXPECT_EQ(o.spill_dir, "x/spill");
  EXPECT_EQ(o.state_dir, "x/state");
}

TEST(ParseCrawlCommand, SwitchesTakeNoValueOrAnExplicitBoolean) {
  CrawlOptions o = ParseOk({"--seeds", "s", "--quiet", "--strict", "--ignore-nofollow", "--fresh"});
  EXPECT_TRUE(o.quiet);
  EXPECT_TRUE(o.strict);
  EXPECT_TRUE(o.ignore_nofollow);
  EXPECT_TRUE(o.fresh);
  EXPECT_FALSE(o.resume);
  o = ParseOk({"--resume", "--quiet=false", "--strict=true"});
  EXPECT_TRUE(o.resume);
  EXPECT_FALSE(o.quiet);
  EXPECT_TRUE(o.strict);
  EXPECT_TRUE(ParseOk({"--seeds", "s", "-q"}).quiet);
  // A switch does not swallow the next argument.
  o = ParseOk({"--quiet", "--seeds", "s"});
  EXPECT_EQ(o.seeds_file, "s");
  EXPECT_EQ(ParseError({"--seeds", "s", "--quiet=maybe"}), "--quiet: 'maybe' is not true or false");
}

TEST(ParseCrawlCommand, AllowAndDenyRepeatAndAppend) {
  CrawlOptions o = ParseOk({"--seeds", "s", "--allow", "^https://a/", "--deny", "x",
                            "--allow=^https://b/", "--deny", "y"});
  EXPECT_THAT(o.allow, ElementsAre("^https://a/", "^https://b/"));
  EXPECT_THAT(o.deny, ElementsAre("x", "y"));
}

// Type and extension filters and --sitemap, repeatable, each checked.
TEST(ParseCrawlCommand, TypeFiltersAndSitemaps) {
  CrawlOptions o = ParseOk({"--seeds", "s", "--accept-type", "text/html", "--accept-type=image/*",
                            "--reject-type", "image/svg+xml", "--reject-ext", "pdf,zip",
                            "--reject-ext=mp4", "--sitemap", "https://a.test/sitemap.xml",
                            "--sitemap", "http://a.test/news.xml.gz"});
  EXPECT_THAT(o.accept_types, ElementsAre("text/html", "image/*"));
  EXPECT_THAT(o.reject_types, ElementsAre("image/svg+xml"));
  EXPECT_THAT(o.reject_ext, ElementsAre("pdf,zip", "mp4"));
  EXPECT_THAT(o.sitemap_urls,
              ElementsAre("https://a.test/sitemap.xml", "http://a.test/news.xml.gz"));
  EXPECT_EQ(ParseError({"--seeds", "s", "--accept-type", "html"}),
            "--accept-type: 'html' is not a media type pattern (type/subtype, type/* or */*)");
  EXPECT_EQ(ParseError({"--seeds", "s", "--reject-type", "text/*html"}),
            "--reject-type: 'text/*html' is not a media type pattern (type/subtype, type/* or "
            "*/*)");
  EXPECT_EQ(ParseError({"--seeds", "s", "--reject-ext", "pdf,,zip"}),
            "--reject-ext: 'pdf,,zip' is not a list of extensions like pdf,zip,mp4 (bad item '')");
  EXPECT_EQ(ParseError({"--seeds", "s", "--sitemap", "ftp://a.test/s.xml"}),
            "--sitemap: 'ftp://a.test/s.xml' is not an http(s) URL");
  EXPECT_THAT(ParseError({"--seeds", "s", "--sitemap", "sitemap.xml"}),
              ::testing::StartsWith("--sitemap: 'sitemap.xml' is not a URL"));
}

// --proxy, --no-proxy-env and a repeatable --header, each checked.
TEST(ParseCrawlCommand, ProxyAndHeaders) {
  CrawlOptions o = ParseOk({"--seeds", "s", "--proxy", "socks5h://127.0.0.1:1080", "--no-proxy-env",
                            "--header", "X-A: 1", "--header=Accept-Language: en"});
  EXPECT_EQ(o.proxy, "socks5h://127.0.0.1:1080");
  EXPECT_TRUE(o.no_proxy_env);
  EXPECT_THAT(o.headers, ElementsAre("X-A: 1", "Accept-Language: en"));
  EXPECT_FALSE(ParseOk({"--seeds", "s"}).no_proxy_env);  // the environment counts by default
  EXPECT_EQ(ParseError({"--seeds", "s", "--header", "X-A"}),
            "--header: 'X-A' is not a header 'Name: value'");
  EXPECT_EQ(ParseError({"--seeds", "s", "--header", "Bad Name: 1"}),
            "--header: 'Bad Name: 1' is not a header 'Name: value'");
  EXPECT_EQ(ParseError({"--seeds", "s", "--header", "X: a\r\nY: b"}),
            "--header: 'X: a\\r\\nY: b' contains a control character");
  EXPECT_EQ(ParseError({"--seeds", "s", "--proxy", "ftp://p:21"}),
            "--proxy: 'ftp://p:21' must start with http://, https://, socks4://, socks4a://, "
            "socks5:// or socks5h://");
}

TEST(ParseCrawlCommand, FlagsOverrideTheConfigFileInAnyOrder) {
  testing::TempDir dir;
  std::string config = dir.Write("my.toml", R"(
[seeds]
file = "from-file.txt"
[crawl]
expected = 2000
allow = ["file-a", "file-b"]
deny = ["file-d"]
[fetch]
threads = 4
connections = 10
[output]
dir = "file-out"
)");
  // Flags before and after --config both win over the file.
  CrawlOptions o =
      ParseOk({"--threads", "6", "--config", config, "--expected", "3000", "--allow", "flag-a"});
  EXPECT_EQ(o.config_file, config);
  EXPECT_EQ(o.seeds_file, "from-file.txt");  // from the file: no flag
  EXPECT_EQ(o.threads, 6);
  EXPECT_EQ(o.expected, 3000u);
  EXPECT_EQ(o.connections, 10);
  // A list given on the command line replaces the file's list.
  EXPECT_THAT(o.allow, ElementsAre("flag-a"));
  EXPECT_THAT(o.deny, ElementsAre("file-d"));
  EXPECT_EQ(o.spill_dir, "file-out/spill");
}

TEST(ParseCrawlCommand, TheShippedConfigGivesTheSameOptionsAsNoConfig) {
  const std::string shipped = std::string(CRAWL_SOURCE_DIR) + "/config/crawl.toml";
  CrawlOptions with_file = ParseOk({"--config=" + shipped, "--seeds", "s.txt"});
  CrawlOptions without = ParseOk({"--seeds", "s.txt"});
  EXPECT_EQ(with_file.config_file, shipped);
  with_file.config_file.clear();
  EXPECT_TRUE(with_file == without);
}

TEST(ParseCrawlCommand, ConfigFileErrorsNameTheFileAndKey) {
  testing::TempDir dir;
  std::string config = dir.Write("crawl.toml", "[fetch]\nfoo = 1\n");
  EXPECT_EQ(ParseError({"--config", config, "--seeds", "s"}),
            config + ": unknown key 'fetch.foo' (line 2)");
  EXPECT_EQ(ParseError({"--config", dir.Path("missing.toml"), "--seeds", "s"}),
            dir.Path("missing.toml") + ": cannot read (No such file or directory)");
  EXPECT_EQ(ParseError({"--seeds", "s", "--config"}), "--config: missing value FILE (see --help)");
}

TEST(ParseCrawlCommand, BadValuesNameTheFlagAndTheValue) {
  EXPECT_EQ(ParseError({"--seeds", "s", "--fp-rate", "1.5"}), "--fp-rate: 1.5 is not in (0, 1)");
  EXPECT_EQ(ParseError({"--seeds", "s", "--fp-rate", "-0.1"}), "--fp-rate: -0.1 is not in (0, 1)");
  EXPECT_EQ(ParseError({"--seeds", "s", "--fp-rate", "1%"}), "--fp-rate: '1%' is not a number");
  EXPECT_EQ(ParseError({"--seeds", "s", "--expected", "0"}), "--expected: 0 must be at least 1");
  EXPECT_EQ(ParseError({"--seeds", "s", "--expected", "-5"}), "--expected: -5 is negative");
  EXPECT_EQ(ParseError({"--seeds", "s", "--max-pages", "-1"}), "--max-pages: -1 is negative");
  EXPECT_EQ(ParseError({"--seeds", "s", "--max-pages", "10k"}),
            "--max-pages: '10k' is not a count (e.g. 1000000, 1_000_000, 1e6)");
  EXPECT_EQ(ParseError({"--seeds", "s", "--threads", "0"}), "--threads: 0 is not in [1, 1024]");
  EXPECT_EQ(ParseError({"--seeds", "s", "--threads", "1e10"}),
            "--threads: 1e10 is not in [1, 1024]");
  EXPECT_EQ(ParseError({"--seeds", "s", "--connections", "0"}),
            "--connections: 0 is not in [1, 100000]");
  EXPECT_EQ(ParseError({"--seeds", "s", "--max-depth", "-2"}),
            "--max-depth: -2 is not in [-1, 2147483647]");
  EXPECT_EQ(ParseOk({"--seeds", "s", "--max-depth", "-1"}).max_depth, -1);
  EXPECT_EQ(ParseError({"--seeds", "s", "--max-depth", "deep"}),
            "--max-depth: 'deep' is not an integer");
  EXPECT_EQ(ParseError({"--seeds", "s", "--scope", "planet"}),
            "--scope: 'planet' is not a scope (host, domain or any)");
  EXPECT_THAT(ParseError({"--seeds", "s", "--allow", "a(b"}),
              StartsWith("--allow: 'a(b' is not a valid RE2 pattern: missing )"));
  EXPECT_THAT(ParseError({"--seeds", "s", "--deny", "*x"}),
              StartsWith("--deny: '*x' is not a valid RE2 pattern"));
  EXPECT_EQ(ParseError({"--seeds", "s", "--user-agent", ""}), "--user-agent: must not be empty");
  EXPECT_EQ(ParseError({"--seeds", "s", "--timeout", "0"}), "--timeout: 0 must be greater than 0");
  EXPECT_EQ(ParseError({"--seeds", "s", "--timeout", "-1"}), "--timeout: -1 is negative");
  EXPECT_EQ(ParseError({"--seeds", "s", "--connect-timeout", "fast"}),
            "--connect-timeout: 'fast' is not a duration (e.g. 200ms, 1s, 1.5, 2m)");
  EXPECT_EQ(ParseError({"--seeds", "s", "--max-body", "0"}), "--max-body: 0 must be at least 1");
  EXPECT_EQ(ParseError({"--seeds", "s", "--max-body", "10Mb"}),
            "--max-body: '10Mb' is not a size (e.g. 1048576, 64MiB, 10MB)");
  EXPECT_EQ(ParseError({"--seeds", "s", "--out", ""}), "--out: must not be empty");
  EXPECT_EQ(ParseError({"--seeds", "s", "--log-level", "chatty"}),
            "--log-level: 'chatty' is not one of trace|debug|info|warn|error|off");
  EXPECT_EQ(ParseError({"--seeds", "s", "--max-url-length", "8"}),
            "--max-url-length: 8 is not in [16, 1048576]");
  EXPECT_EQ(ParseError({"--seeds", "s", "--queue-memory", "lots"}),
            "--queue-memory: 'lots' is not a size (e.g. 1048576, 64MiB, 10MB)");
  EXPECT_EQ(ParseError({"--seeds", "s", "--overflow", "drop"}),
            "--overflow: 'drop' is not one of grow|warn");
  EXPECT_EQ(ParseError({"--seeds", "s", "--per-host", "0"}), "--per-host: 0 is not in [1, 1024]");
  EXPECT_EQ(ParseError({"--seeds", "s", "--delay", "-200ms"}), "--delay: -200ms is negative");
  EXPECT_EQ(ParseError({"--seeds", "s", "--per-ip", "-2"}), "--per-ip: -2 is not in [-1, 1024]");
  EXPECT_EQ(ParseError({"--seeds", "s", "--ip-delay", "soon"}),
            "--ip-delay 'soon': expected a duration (250ms, 1s, 0) or auto");
  EXPECT_EQ(ParseError({"--seeds", "s", "--ip-delay", "-1s"}),
            "--ip-delay '-1s': expected a duration (250ms, 1s, 0) or auto");
  EXPECT_EQ(ParseError({"--seeds", "s", "--robots", "yes"}), "--robots: 'yes' is not on or off");
  EXPECT_EQ(ParseError({"--seeds", "s", "--max-redirects", "101"}),
            "--max-redirects: 101 is not in [0, 100]");
  EXPECT_EQ(ParseError({"--seeds", "s", "--retries", "-1"}), "--retries: -1 is negative");
  EXPECT_EQ(ParseError({"--seeds", "s", "--max-pages-per-host", "x"}),
            "--max-pages-per-host: 'x' is not a count (e.g. 1000000, 1_000_000, 1e6)");
  EXPECT_EQ(ParseError({"--seeds", "s", "--checkpoint-every", "0"}),
            "--checkpoint-every: 0 must be greater than 0");
  EXPECT_EQ(ParseError({"--seeds", "s", "--block-private", "auto-ish"}),
            "--block-private: 'auto-ish' is not one of auto|on|off");
}

TEST(ParseCrawlCommand, UsageErrors) {
  EXPECT_EQ(ParseError({}),
            "--seeds: missing (a file of start URLs, '-' for stdin, [seeds] file in the config, "
            "URLs as arguments, or --sitemap URL)");
  EXPECT_EQ(ParseError({"--seeds", "s", "--bogus"}), "unknown option '--bogus' (see --help)");
  EXPECT_EQ(ParseError({"--seeds", "s", "extra"}),
            "unexpected argument 'extra': neither an option (--name) nor an http(s) URL to start "
            "from (see --help)");
  EXPECT_EQ(ParseError({"--seeds", "s", "-x"}), "unknown option '-x' (see --help)");
  EXPECT_EQ(ParseError({"--seeds", "s", "-qd"}), "unknown option '-qd' (see --help)");
  EXPECT_EQ(ParseError({"--seeds", "s", "-hx"}), "unknown option '-hx' (see --help)");
  EXPECT_EQ(ParseError({"--seeds", "s", "-U"}),
            "-U (--user-agent): missing value TEXT (see --help)");
  EXPECT_EQ(ParseError({"--seeds", "s", "--out", "-"}),
            "--out: '-' is not a directory; the crawl writes several files (pages.jsonl, "
            "summary.json, state/), so give a directory and read DIR/pages.jsonl");
  EXPECT_EQ(ParseError({"--seeds", "s", "--metrics", "9100x"}),
            "--metrics: '9100x': the port is not a number in [0, 65535] (PORT, HOST:PORT or "
            "[IPV6]:PORT)");
  EXPECT_EQ(ParseError({"--seeds", "s", "--log-format", "xml"}),
            "--log-format: 'xml' is not one of text|json");
  EXPECT_EQ(ParseError({"--seeds"}), "--seeds: missing value FILE (see --help)");
  EXPECT_EQ(ParseError({"--seeds", "s", "--threads"}), "--threads: missing value N (see --help)");
  EXPECT_THAT(ParseError({"--seeds", "s", "--resume", "--fresh"}),
              StartsWith("--resume and --fresh contradict each other"));
  EXPECT_EQ(ParseError({"--seeds", "s", "--connections", "2", "--per-host", "4"}),
            "--per-host: 4 is more than --connections (2, the total)");
}

TEST(ParseCrawlCommand, ArgumentsThatAreNotOptionsAreStartUrls) {
  CrawlOptions alone = ParseOk({"https://example.org/", "http://example.net/a"});
  EXPECT_THAT(alone.seed_urls, ElementsAre("https://example.org/", "http://example.net/a"));
  EXPECT_EQ(alone.seeds_file, "");
  CrawlOptions with_file = ParseOk({"--seeds", "s", "https://example.org/", "--max-pages", "3"});
  EXPECT_EQ(with_file.seeds_file, "s");
  EXPECT_THAT(with_file.seed_urls, ElementsAre("https://example.org/"));
  EXPECT_EQ(with_file.max_pages, 3u);
  // After "--" even a dash-led argument is a URL (and this one is not).
  EXPECT_THAT(ParseError({"--", "--quiet"}), StartsWith("unexpected argument '--quiet'"));
  EXPECT_THAT(ParseOk({"--", "https://example.org/"}).seed_urls,
              ElementsAre("https://example.org/"));
}

TEST(ParseCrawlCommand, ShortOptionsMeanWhatTheyMeanInWget2) {
  CrawlOptions o = ParseOk({"-q", "-d", "-i", "-", "-U", "bot/1", "-w", "2", "-P", "outdir"});
  EXPECT_TRUE(o.quiet);
  EXPECT_EQ(o.log_level, "debug");
  EXPECT_EQ(o.seeds_file, "-");
  EXPECT_EQ(o.user_agent, "bot/1");
  EXPECT_EQ(o.delay_s, 2.0);
  EXPECT_EQ(o.out_dir, "outdir");
  CrawlOptions attached = ParseOk({"-iseeds.txt", "-Ubot/2", "-w200ms"});
  EXPECT_EQ(attached.seeds_file, "seeds.txt");
  EXPECT_EQ(attached.user_agent, "bot/2");
  EXPECT_EQ(attached.delay_s, 0.2);
  // Letters whose wget meaning differs from any flag of ours are not taken.
  for (const char* letter : {"-o", "-O", "-e", "-t", "-T", "-l", "-r"}) {
    EXPECT_THAT(ParseError({"--seeds", "s", letter, "x"}), StartsWith("unknown option")) << letter;
  }
  absl::StatusOr<ParsedCommand> help = Parse({"-h"});
  ASSERT_TRUE(help.ok());
  EXPECT_EQ(help->kind, ParsedCommand::kHelp);
  absl::StatusOr<ParsedCommand> version = Parse({"-V"});
  ASSERT_TRUE(version.ok());
  EXPECT_EQ(version->kind, ParsedCommand::kVersion);
}

TEST(ParseCrawlCommand, HelpAndVersionWinOverEverythingElse) {
  absl::StatusOr<ParsedCommand> help = Parse({"--bogus", "--help"});
  ASSERT_TRUE(help.ok()) << help.status();
  EXPECT_EQ(help->kind, ParsedCommand::kHelp);
  EXPECT_EQ(help->text, HelpText());
  EXPECT_EQ(Parse({"-h"})->kind, ParsedCommand::kHelp);
  absl::StatusOr<ParsedCommand> version = Parse({"--version", "--threads", "0"});
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(version->kind, ParsedCommand::kVersion);
  EXPECT_EQ(version->text, std::string("crawl ") + CRAWL_VERSION + "\n");
  EXPECT_EQ(Parse({"-V"})->kind, ParsedCommand::kVersion);
}

TEST(HelpText, ListsEveryFlagAndTheDefaultsInUse) {
  std::string help = HelpText();
  for (const char* flag : {"--seeds FILE",
                           "--expected N",
                           "--fp-rate RATE",
                           "--threads N",
                           "--connections N",
                           "--max-pages N",
                           "--max-depth N",
                           "--scope host|domain|any",
                           "--allow REGEX",
                           "--deny REGEX",
                           "--user-agent TEXT",
                           "--timeout DURATION",
                           "--max-body SIZE",
                           "--out DIR",
                           "--config FILE",
                           "--log-level LEVEL",
                           "--quiet",
                           "--help",
                           "--version",
                           "--strict",
                           "--ignore-nofollow",
                           "--max-url-length N",
                           "--queue-memory SIZE",
                           "--spill-dir DIR",
                           "--overflow grow|warn",
                           "--filter-memory-max SIZE",
                           "--per-host N",
                           "--delay DURATION",
                           "--robots on|off",
                           "--max-redirects N",
                           "--retries N",
                           "--max-pages-per-host N",
                           "--state DIR",
                           "--resume",
                           "--fresh",
                           "--checkpoint-every DURATION",
                           "--block-private auto|on|off",
                           "--connect-timeout DURATION"}) {
    EXPECT_THAT(help, HasSubstr(flag));
  }
  EXPECT_THAT(help, HasSubstr("[1000000]"));
  EXPECT_THAT(help, HasSubstr("[0.01]"));
  EXPECT_THAT(help, HasSubstr("[10MiB]"));
  EXPECT_THAT(help, HasSubstr("[64MiB]"));
  EXPECT_THAT(help, HasSubstr("[1s]"));
  EXPECT_THAT(help, HasSubstr("[crawl/0.1]"));
  EXPECT_THAT(help, HasSubstr("Exit status:"));
  for (const char* code :
       {"  0  the crawl finished", "  1  runtime failure", "  2  usage",
        "  3  the crawl ended but no URL could be fetched", "  4  more than 1%"}) {
    EXPECT_THAT(help, HasSubstr(code));
  }
  EXPECT_THAT(help, Not(IsEmpty()));
}

// --help (and so the man page, which help2man makes of
// it) did not list the subcommands, and its second usage line fell under
// DESCRIPTION (help2man takes "  or:" lines as more usage).
TEST(HelpText, ListsTheCommandsAndEveryUsageLine) {
  const std::string help = HelpText();
  for (const char* command : {"  url BASE HREF", "  links [options] [FILE]",
                              "  robots [options] URL...", "  completion bash"}) {
    EXPECT_NE(help.find(command), std::string::npos) << command;
  }
  EXPECT_NE(help.find("\n  or:  crawl --seeds FILE"), std::string::npos) << help;
  EXPECT_NE(help.find("\n  or:  crawl --resume --out DIR"), std::string::npos) << help;
  EXPECT_NE(help.find("about 17 minutes"), std::string::npos) << help;
}

}  // namespace
}  // namespace crawler
