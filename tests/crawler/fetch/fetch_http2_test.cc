// HTTP/2 against a server that offers it: Debian's nginx on 127.0.0.1 with
// TLS and "http2" on its listen line (cpp-httplib speaks only HTTP/1.1).
// What we ask of the fetcher: HTTP/2 where the server offers it,
// connection reuse (here: multiplexing many transfers on one connection),
// gzip decoding, TLS verification on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "crawler/fetch.h"
#include "crawler/fetch/loopback_server.h"
#include "crawler/fetch/nginx_server.h"

namespace crawler::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr int kPages = 40;

std::string PageBody(int i) {
  return absl::StrCat("<html><body><p>page ", i, "</p>", std::string(2000 + i, 'x'),
                      "</body></html>");
}

void AddPages(NginxServer& nginx) {
  for (int i = 0; i < kPages; ++i) nginx.AddFile(absl::StrCat(i, ".html"), PageBody(i));
}

// Fetches every page at once with one fetcher thread; results by page index.
std::vector<FetchResult> FetchAll(const NginxServer& nginx, FetchOptions options,
                                  FetchStats* stats) {
  ResultCollector collector;
  auto fetcher = Fetcher::Create(options, collector.Callback());
  EXPECT_TRUE(fetcher.ok()) << fetcher.status();
  if (!fetcher.ok()) return {};
  for (int i = 0; i < kPages; ++i) {
    (*fetcher)->Submit({nginx.Url(absl::StrCat("/", i, ".html")), static_cast<uint64_t>(i)});
  }
  std::vector<FetchResult> arrived = collector.WaitFor(kPages, std::chrono::seconds(30));
  *stats = (*fetcher)->Stats();
  (*fetcher)->Shutdown(std::chrono::milliseconds(0));
  std::vector<FetchResult> by_index(kPages);
  for (FetchResult& r : arrived) by_index[r.tag] = std::move(r);
  return by_index;
}

FetchOptions Http2Options() {
  FetchOptions options = TestOptions();
  options.ca_file = NginxServer::CertFile();
  options.threads = 1;
  options.max_transfers = 16;
  options.http2 = true;
  return options;
}

// Splits "HTTP/2.0 /3.html 1" into its three fields.
std::vector<std::string> Fields(const std::string& line) { return absl::StrSplit(line, ' '); }

TEST(FetchHttp2Test, NegotiatesHttp2AndMultiplexesOnOneConnection) {
  NginxServer nginx;
  AddPages(nginx);
  ASSERT_TRUE(nginx.Start().ok());
  FetchStats stats;
  const std::vector<FetchResult> results = FetchAll(nginx, Http2Options(), &stats);
  ASSERT_EQ(results.size(), static_cast<size_t>(kPages));
  for (int i = 0; i < kPages; ++i) {
    const FetchResult& r = results[i];
    EXPECT_EQ(r.error, "") << i;
    EXPECT_EQ(r.status, 200) << i;
    EXPECT_THAT(r.headers, StartsWith("HTTP/2 200")) << i;
    EXPECT_EQ(r.body, PageBody(i)) << i;
  }
  // All 40 transfers, up to 16 at a time, shared one TCP+TLS connection.
  EXPECT_EQ(stats.connections_opened, 1u);
  const std::vector<std::string> log = nginx.AccessLog();
  ASSERT_EQ(log.size(), static_cast<size_t>(kPages));
  std::set<std::string> connections;
  for (const std::string& line : log) {
    const std::vector<std::string> f = Fields(line);
    ASSERT_EQ(f.size(), 3u) << line;
    EXPECT_EQ(f[0], "HTTP/2.0") << line;
    connections.insert(f[2]);
  }
  EXPECT_EQ(connections.size(), 1u);
}

TEST(FetchHttp2Test, StaysOnHttp11WhenHttp2IsOff) {
  NginxServer nginx;
  AddPages(nginx);
  ASSERT_TRUE(nginx.Start().ok());
  FetchOptions options = Http2Options();
  options.http2 = false;
  FetchStats stats;
  const std::vector<FetchResult> results = FetchAll(nginx, options, &stats);
  ASSERT_EQ(results.size(), static_cast<size_t>(kPages));
  for (int i = 0; i < kPages; ++i) {
    EXPECT_THAT(results[i].headers, StartsWith("HTTP/1.1 200")) << i;
    EXPECT_EQ(results[i].body, PageBody(i)) << i;
  }
  for (const std::string& line : nginx.AccessLog()) EXPECT_THAT(line, StartsWith("HTTP/1.1 "));
}

TEST(FetchHttp2Test, GzipOverHttp2IsDecodedAndTheCapCountsDecodedBytes) {
  NginxServer nginx({.http2 = true, .gzip = true});
  const std::string big(200000, 'a');  // ~200 KB that gzip shrinks to a few hundred bytes
  nginx.AddFile("big.txt", big);
  ASSERT_TRUE(nginx.Start().ok());
  FetchOptions options = Http2Options();
  FetchResult r = FetchOne(options, nginx.Url("/big.txt"));
  EXPECT_EQ(r.error, "");
  EXPECT_THAT(r.headers, StartsWith("HTTP/2 200"));
  EXPECT_THAT(absl::AsciiStrToLower(r.headers), HasSubstr("content-encoding: gzip"));
  EXPECT_EQ(r.body, big);
  EXPECT_LT(r.wire_bytes, 10000u);  // what crossed the wire was the compressed form

  options.max_body = 50000;
  r = FetchOne(options, nginx.Url("/big.txt"));
  EXPECT_EQ(r.error, kFetchBodyTooLarge);
  EXPECT_EQ(r.body.size(), 50000u);
}

TEST(FetchHttp2Test, UntrustedCertificateFailsEvenOverHttp2) {
  NginxServer nginx;
  AddPages(nginx);
  ASSERT_TRUE(nginx.Start().ok());
  FetchOptions options = Http2Options();
  options.ca_file.clear();  // the system bundle does not know our self-signed certificate
  const FetchResult r = FetchOne(options, nginx.Url("/0.html"));
  EXPECT_EQ(r.error, kFetchTls);
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(nginx.AccessLog().empty());
}

}  // namespace
}  // namespace crawler::testing
