// [[hosts]] in crawl.toml (per_host and delay "configurable per host
// pattern in the config file"): every form loads, the shipped file's
// commented example stays a comment, and each bad input is an error naming
// the file, the table and the key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "crawler/config/config_text.h"
#include "crawler/config/temp_files.h"
#include "crawler/options.h"

namespace crawler {
namespace {

using ::testing::HasSubstr;

using testing::ErrorOf;
using testing::LoadText;

HostRule Rule(std::string pattern, int per_host, double delay_s) {
  HostRule rule;
  rule.pattern = std::move(pattern);
  rule.per_host = per_host;
  rule.delay_s = delay_s;
  return rule;
}

TEST(HostRules, LoadsEveryFormInFileOrder) {
  testing::TempDir dir;
  absl::StatusOr<CrawlOptions> loaded = LoadText(dir, R"(
[fetch]
per_host = 2

[[hosts]]
pattern = "*.example.org"
per_host = 4
delay = "250ms"

[[hosts]]
pattern = "127.0.0.1:8080"
delay = 0.5

[[hosts]]
pattern = "slow.net"
delay = 3
)");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->hosts.size(), 3u);
  EXPECT_EQ(loaded->hosts[0], Rule("*.example.org", 4, 0.25));
  EXPECT_EQ(loaded->hosts[1], Rule("127.0.0.1:8080", 0, 0.5));
  EXPECT_EQ(loaded->hosts[2], Rule("slow.net", 0, 3.0));
  EXPECT_EQ(loaded->per_host, 2);
}

// The server limits a start of the matching hosts checks (--per-ip,
// --ip-delay); unset keys leave the flags' values.
TEST(HostRules, PerIpAndIpDelay) {
  testing::TempDir dir;
  absl::StatusOr<CrawlOptions> loaded = LoadText(dir, R"(
[fetch]
per_ip = 6
ip_delay = "50ms"

[[hosts]]
pattern = "*.shared.example"
per_ip = 0
ip_delay = "2s"

[[hosts]]
pattern = "other.example"
per_host = 3
)");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->per_ip, 6);
  EXPECT_EQ(loaded->ip_delay, "50ms");
  ASSERT_EQ(loaded->hosts.size(), 2u);
  EXPECT_EQ(loaded->hosts[0].per_ip, 0);
  EXPECT_EQ(loaded->hosts[0].ip_delay_s, 2.0);
  EXPECT_LT(loaded->hosts[1].per_ip, -1);     // unset: the flag's
  EXPECT_LT(loaded->hosts[1].ip_delay_s, 0);  // unset: the flag's
  EXPECT_THAT(ErrorOf(dir, "[[hosts]]\npattern = \"a\"\nper_ip = -1\n"),
              HasSubstr("crawl.toml: hosts[0].per_ip: expected an integer in [0, 1024]"));
  EXPECT_THAT(ErrorOf(dir, "[[hosts]]\npattern = \"a\"\nip_delay = \"soon\"\n"),
              HasSubstr("crawl.toml: hosts[0].ip_delay: "));
}

// Per-host request headers and HTTP credentials.
TEST(HostRules, HeadersAndCredentials) {
  testing::TempDir dir;
  absl::StatusOr<CrawlOptions> loaded = LoadText(dir, R"(
[[hosts]]
pattern = "intranet.example"
headers = ["Accept-Language: en", "X-Token: t"]
user = "me"
password = "secret"
auth = "digest"
)");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->hosts.size(), 1u);
  EXPECT_EQ(loaded->hosts[0].headers,
            (std::vector<std::string>{"Accept-Language: en", "X-Token: t"}));
  EXPECT_EQ(loaded->hosts[0].user, "me");
  EXPECT_EQ(loaded->hosts[0].password, "secret");
  EXPECT_EQ(loaded->hosts[0].auth, "digest");
  EXPECT_THAT(ErrorOf(dir, "[[hosts]]\npattern = \"a\"\nheaders = [\"no colon\"]\n"),
              HasSubstr("hosts[0].headers: 'no colon' is not a header 'Name: value'"));
  EXPECT_THAT(ErrorOf(dir, "[[hosts]]\npattern = \"a\"\nauth = \"ntlm\"\n"),
              HasSubstr("hosts[0].auth: expected basic, digest or any"));
}

TEST(HostRules, ShippedFileHasNoActiveRules) {
  absl::StatusOr<CrawlOptions> loaded =
      LoadConfigFile(std::string(CRAWL_SOURCE_DIR) + "/config/crawl.toml", CrawlOptions{});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->hosts.empty());
}

TEST(HostRules, ErrorsNameFileTableAndKey) {
  testing::TempDir dir;
  EXPECT_THAT(ErrorOf(dir, "[[hosts]]\npattern = \"a\"\nspeed = 1\n"),
              HasSubstr("crawl.toml: unknown key 'hosts[0].speed' (line 3)"));
  EXPECT_THAT(ErrorOf(dir, "[[hosts]]\npattern = \"a\"\n[[hosts]]\nper_host = 2\n"),
              HasSubstr("crawl.toml: hosts[1]: missing key 'pattern'"));
  EXPECT_THAT(ErrorOf(dir, "[[hosts]]\npattern = \"a\"\nper_host = 0\n"),
              HasSubstr("crawl.toml: hosts[0].per_host: "));
  EXPECT_THAT(ErrorOf(dir, "[[hosts]]\npattern = \"a\"\nper_host = -1\n"),
              HasSubstr("crawl.toml: hosts[0].per_host: -1 is negative"));
  EXPECT_THAT(ErrorOf(dir, "[[hosts]]\npattern = \"a\"\ndelay = \"soon\"\n"),
              HasSubstr("crawl.toml: hosts[0].delay: "));
  EXPECT_THAT(ErrorOf(dir, "[[hosts]]\npattern = \"a\"\ndelay = -2\n"),
              HasSubstr("crawl.toml: hosts[0].delay: "));
  EXPECT_THAT(ErrorOf(dir, "[[hosts]]\npattern = 5\n"),
              HasSubstr("crawl.toml: hosts[0].pattern: expected a string"));
  EXPECT_THAT(ErrorOf(dir, "hosts = 3\n"),
              HasSubstr("crawl.toml: hosts: expected an array of tables"));
}

}  // namespace
}  // namespace crawler
