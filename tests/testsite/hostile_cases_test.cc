// The hostile-case switches: each route answers as its SiteOptions
// comment promises, the root links to it, and the expected page sets do not
// change. Source of truth: the served bytes, read with httplib::Client or a
// plain socket (for what the raw listener sends).
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <string>

#include "reference_crawl.h"
#include "testsite/test_site.h"

namespace {

using ::testing::HasSubstr;
using testsite::SiteOptions;
using testsite::TestSite;

// A 20-page site with `options`' hostile behaviour.
std::unique_ptr<TestSite> StartHostile(SiteOptions options) {
  options.pages = 20;
  return testsite_test::StartOrDie(options);
}

// Sends a GET for `path` to the raw listener and reads up to `limit` bytes
// (or until the server closes or resets).
std::string RawGet(const TestSite& site, const std::string& path, size_t limit) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  const std::string raw = site.RawBaseUrl();
  address.sin_port = htons(static_cast<uint16_t>(std::stoi(raw.substr(raw.rfind(':') + 1))));
  ::inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  std::string got;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) {
    const std::string request = "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n";
    (void)::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    char buf[65536];
    ssize_t n = 0;
    while (got.size() < limit && (n = ::recv(fd, buf, sizeof(buf), 0)) > 0) {
      got.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return got;
}

TEST(HostileCases, RootLinksToEveryEnabledCaseAndPageSetsDoNotChange) {
  SiteOptions all;
  all.resets = all.drip = all.flaky = all.redirect_traps = all.huge_body = all.gzip_bomb =
      all.bad_content = all.deep_nesting = all.million_links = all.calendar = all.growing_urls =
          all.odd_schemes = true;
  auto site = StartHostile(all);
  ASSERT_NE(site, nullptr);
  auto plain = StartHostile({});
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(site->PageUrls().size(), plain->PageUrls().size());
  httplib::Client client(site->BaseUrl());
  auto root = client.Get("/");
  ASSERT_TRUE(root);
  for (const std::string& href :
       {site->RawBaseUrl() + "/reset/headers", site->RawBaseUrl() + "/reset/body",
        std::string("/drip"), std::string("/flaky/503"), std::string("/flaky/reset"),
        std::string("/loop/a"), std::string("/chain/0"), std::string("/huge"),
        site->RawBaseUrl() + "/bomb", site->RawBaseUrl() + "/ct/missing", std::string("/ct/wrong"),
        std::string("/cs/bad-utf8"), std::string("/cs/unknown"), std::string("/deep"),
        std::string("/million"), std::string("/cal/2000-01-01"), std::string("/grow/"),
        std::string("mailto:"), std::string("gopher://")}) {
    EXPECT_THAT(root->body, HasSubstr("href=\"" + href)) << href;
  }
  EXPECT_EQ(plain->RawBaseUrl(), "");
}

TEST(HostileCases, FlakyRoutesFailThenHeal) {
  auto site = StartHostile({.flaky = true, .flaky_failures = 2});
  ASSERT_NE(site, nullptr);
  httplib::Client client(site->BaseUrl());
  for (int i = 0; i < 2; ++i) {
    auto r = client.Get("/flaky/502");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 502);
    EXPECT_FALSE(client.Get("/flaky/reset"));  // cut mid-body
  }
  EXPECT_EQ(client.Get("/flaky/502")->status, 200);
  EXPECT_EQ(client.Get("/flaky/reset")->status, 200);
  EXPECT_EQ(client.Get("/flaky/418")->status, 404);
  EXPECT_EQ(site->RequestCount("/flaky/502"), 3u);
}

TEST(HostileCases, RedirectTrapsAndCalendar) {
  auto site = StartHostile({.redirect_traps = true, .redirect_chain = 3, .calendar = true});
  ASSERT_NE(site, nullptr);
  httplib::Client client(site->BaseUrl());
  EXPECT_EQ(client.Get("/loop/a")->get_header_value("Location"), "/loop/b");
  EXPECT_EQ(client.Get("/loop/b")->get_header_value("Location"), "/loop/a");
  EXPECT_EQ(client.Get("/chain/2")->get_header_value("Location"), site->BaseUrl() + "/chain/3");
  EXPECT_EQ(client.Get("/chain/3")->status, 200);
  EXPECT_EQ(client.Get("/chain/4")->status, 404);
  EXPECT_THAT(client.Get("/cal/2000-02-28")->body, HasSubstr("href=\"/cal/2000-02-29\""));
  EXPECT_THAT(client.Get("/cal/1999-12-31")->body, HasSubstr("href=\"/cal/2000-01-01\""));
  EXPECT_EQ(client.Get("/cal/2000-02-30")->status, 404);
}

TEST(HostileCases, RawListenerCutsHeadersAndOmitsContentType) {
  auto site = StartHostile({.resets = true, .bad_content = true});
  ASSERT_NE(site, nullptr);
  const std::string cut = RawGet(*site, "/reset/headers", 1 << 20);
  EXPECT_EQ(cut.find("\r\n\r\n"), std::string::npos) << cut;  // the header block never ends
  const std::string missing = RawGet(*site, "/ct/missing", 1 << 20);
  EXPECT_THAT(missing, HasSubstr("HTTP/1.1 200 OK"));
  EXPECT_EQ(missing.find("Content-Type"), std::string::npos);
  EXPECT_EQ(site->RequestCount("/reset/headers"), 1u);
  EXPECT_EQ(site->RequestCount("/ct/missing"), 1u);
}

TEST(HostileCases, TheGzipBombInflatesAThousandFold) {
  auto site = StartHostile({.gzip_bomb = true});
  ASSERT_NE(site, nullptr);
  const std::string response = RawGet(*site, "/bomb", 64 << 10);
  const size_t body = response.find("\r\n\r\n");
  ASSERT_NE(body, std::string::npos);
  EXPECT_THAT(response.substr(0, body), HasSubstr("Content-Encoding: gzip"));
  const std::string wire = response.substr(body + 4);
  z_stream z{};
  ASSERT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(wire.data()));
  z.avail_in = static_cast<uInt>(wire.size());
  std::string out(1 << 20, '\0');
  size_t decoded = 0;
  while (z.avail_in > 0) {
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    if (inflate(&z, Z_NO_FLUSH) < 0) break;
    decoded += out.size() - z.avail_out;
  }
  inflateEnd(&z);
  EXPECT_GT(decoded, 500 * wire.size());
}

TEST(HostileCases, HugeBodyAnnouncesTenGigabytes) {
  auto site = StartHostile({.huge_body = true});
  ASSERT_NE(site, nullptr);
  httplib::Client client(site->BaseUrl());
  size_t received = 0;
  std::string length;
  auto r = client.Get(
      "/huge",
      [&](const httplib::Response& response) {
        length = response.get_header_value("Content-Length");
        return true;
      },
      [&](const char*, size_t n) {
        received += n;
        return received < (1 << 20);  // hang up after 1 MiB
      });
  EXPECT_EQ(length, std::to_string(uint64_t{10} << 30));
  EXPECT_GE(received, 1u << 20);
}

}  // namespace
