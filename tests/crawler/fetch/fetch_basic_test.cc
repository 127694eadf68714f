// The fetcher's answers for ordinary responses: status, content type, raw
// headers, redirects reported but not followed, refused schemes and ports.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "crawler/fetch.h"
#include "crawler/fetch/loopback_server.h"

namespace crawler::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class FetchBasicTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.server().Get("/page.html", [](const httplib::Request&, httplib::Response& res) {
      res.set_header("X-Probe", "42");
      res.set_content("<html><a href=\"/next\">next</a></html>", "text/html; charset=utf-8");
    });
    server_.server().Get("/data.json", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("{\"a\":1}", "application/json");
    });
    server_.server().Get("/moved", [](const httplib::Request&, httplib::Response& res) {
      res.status = 301;
      res.set_header("Location", "../target/here?x=1");
    });
    server_.server().Get("/agent", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content(req.get_header_value("User-Agent"), "text/plain");
    });
    // The request line and header lines the server parsed, sorted, one per
    // line (httplib adds REMOTE_ADDR and friends to the headers: dropped).
    server_.server().Get("/echo", [](const httplib::Request& req, httplib::Response& res) {
      std::vector<std::string> lines;
      for (const auto& [name, value] : req.headers) {
        if (name.starts_with("REMOTE_") || name.starts_with("LOCAL_")) continue;
        lines.push_back(name + ": " + value);
      }
      std::sort(lines.begin(), lines.end());
      std::string text = req.method + " " + req.target + " " + req.version + "\n";
      for (const std::string& line : lines) text += line + "\n";
      res.set_content(text, "text/plain");
    });
    server_.Start();
  }

  LoopbackServer server_;
};

TEST_F(FetchBasicTest, HtmlPageComesBackWithStatusTypeHeadersAndPeer) {
  const FetchResult r = FetchOne(TestOptions(), server_.Url("/page.html"));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.tag, 7u);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.url, server_.Url("/page.html"));
  EXPECT_EQ(r.final_url, server_.Url("/page.html"));
  EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
  EXPECT_TRUE(IsHtmlContentType(r.content_type));
  EXPECT_EQ(r.body, "<html><a href=\"/next\">next</a></html>");
  EXPECT_THAT(r.headers, StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(r.headers, HasSubstr("X-Probe: 42\r\n"));
  EXPECT_THAT(r.headers, ::testing::EndsWith("\r\n\r\n"));
  EXPECT_EQ(r.remote_ip, "127.0.0.1");
  EXPECT_EQ(r.location, "");
  // Counted before decoding: httplib compressed this body (Content-Encoding: br).
  EXPECT_GT(r.wire_bytes, r.headers.size());
  EXPECT_GT(r.fetch_ms, 0);
  const auto age = std::chrono::system_clock::now() - r.started_at;
  EXPECT_GE(age, std::chrono::seconds(0));
  EXPECT_LT(age, std::chrono::seconds(20));
}

TEST_F(FetchBasicTest, NonHtmlTypeIsRecordedAsSent) {
  const FetchResult r = FetchOne(TestOptions(), server_.Url("/data.json"));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_FALSE(IsHtmlContentType(r.content_type));
  EXPECT_EQ(r.body, "{\"a\":1}");
}

TEST_F(FetchBasicTest, NotFoundIsAResponseNotAnError) {
  const FetchResult r = FetchOne(TestOptions(), server_.Url("/nope"));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.status, 404);
}

TEST_F(FetchBasicTest, RedirectIsReportedWithResolvedTargetAndNotFollowed) {
  const FetchResult r = FetchOne(TestOptions(), server_.Url("/moved"));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.status, 301);
  // "../target/here?x=1" against http://127.0.0.1:port/moved (RFC 3986 section 5.2).
  EXPECT_EQ(r.location, server_.Url("/target/here?x=1"));
  EXPECT_EQ(r.final_url, server_.Url("/moved"));
  EXPECT_EQ(server_.Requests(), 1u) << "the fetcher must not follow the redirect itself";
}

TEST_F(FetchBasicTest, UserAgentIsSent) {
  FetchOptions options = TestOptions();
  options.user_agent = "crawl-test/9";
  EXPECT_EQ(FetchOne(options, server_.Url("/agent")).body, "crawl-test/9");
}

// The request block is what the server received: same request line, same
// header lines, nothing more, and it ends with the empty line.
TEST_F(FetchBasicTest, RequestHeadersAreTheBlockTheServerReceived) {
  FetchOptions options = TestOptions();
  options.keep_request_headers = true;
  options.user_agent = "crawl-test/9";
  const FetchResult r = FetchOne(options, server_.Url("/echo?q=1"));
  ASSERT_EQ(r.status, 200) << r.error;
  ASSERT_THAT(r.request_headers, ::testing::EndsWith("\r\n\r\n"));
  std::vector<std::string> lines =
      absl::StrSplit(r.request_headers.substr(0, r.request_headers.size() - 4), "\r\n");
  ASSERT_GE(lines.size(), 3u);
  const std::string request_line = lines.front();
  EXPECT_EQ(request_line, "GET /echo?q=1 HTTP/1.1");
  lines.erase(lines.begin());
  std::sort(lines.begin(), lines.end());
  EXPECT_THAT(lines, ::testing::Contains("User-Agent: crawl-test/9"));
  EXPECT_THAT(lines, ::testing::Contains("Host: 127.0.0.1:" + std::to_string(server_.port())));
  EXPECT_EQ(request_line + "\n" + absl::StrJoin(lines, "\n") + "\n", r.body);
}

TEST_F(FetchBasicTest, RequestHeadersAreEmptyUnlessAsked) {
  const FetchResult r = FetchOne(TestOptions(), server_.Url("/echo"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.request_headers, "");
}

TEST_F(FetchBasicTest, NonHttpSchemesAreRefusedWithoutTraffic) {
  for (const char* url : {"ftp://127.0.0.1/x", "file:///etc/passwd", "mailto:a@b.example",
                          "gopher://127.0.0.1/", "127.0.0.1/page.html"}) {
    const FetchResult r = FetchOne(TestOptions(), url);
    EXPECT_EQ(r.error, kFetchScheme) << url;
    EXPECT_EQ(r.status, 0) << url;
    EXPECT_EQ(r.url, url);
  }
  EXPECT_EQ(server_.Requests(), 0u);
}

TEST_F(FetchBasicTest, SchemeCheckIgnoresCase) {
  std::string url = server_.Url("/page.html");
  url.replace(0, 4, "HTTP");
  EXPECT_EQ(FetchOne(TestOptions(), url).status, 200);
}

TEST(FetchErrorsTest, ClosedPortIsAConnectError) {
  // Bind a port, then close the server: nothing listens there any more.
  int port = 0;
  {
    LoopbackServer closed;
    closed.Start();
    port = closed.port();
  }
  const FetchResult r = FetchOne(TestOptions(), "http://127.0.0.1:" + std::to_string(port) + "/");
  EXPECT_EQ(r.error, kFetchConnect);
  EXPECT_EQ(r.status, 0);
}

TEST_F(FetchBasicTest, BlockPrivateRefusesLoopbackAfterResolution) {
  FetchOptions options = TestOptions();
  options.block_private = true;
  const FetchResult r = FetchOne(options, server_.Url("/page.html"));
  EXPECT_EQ(r.error, kFetchPrivateAddress);
  EXPECT_EQ(server_.Requests(), 0u);
  // "localhost" resolves to loopback too: the check is on the address, not the name.
  const FetchResult by_name =
      FetchOne(options, "http://localhost:" + std::to_string(server_.port()) + "/page.html");
  EXPECT_EQ(by_name.error, kFetchPrivateAddress);
}

TEST(FetchContentTypeTest, OnlyHtmlAndXhtmlAreParsed) {
  EXPECT_TRUE(IsHtmlContentType("text/html"));
  EXPECT_TRUE(IsHtmlContentType("TEXT/HTML; charset=ISO-8859-1"));
  EXPECT_TRUE(IsHtmlContentType(" application/xhtml+xml ;charset=utf-8"));
  EXPECT_FALSE(IsHtmlContentType(""));
  EXPECT_FALSE(IsHtmlContentType("text/plain"));
  EXPECT_FALSE(IsHtmlContentType("text/html5"));
  EXPECT_FALSE(IsHtmlContentType("application/xml"));
  EXPECT_FALSE(IsHtmlContentType("image/svg+xml"));
}

TEST(FetchOptionsTest, CreateRejectsInvalidOptions) {
  auto noop = [](FetchResult&&) {};
  auto with = [](auto change) {
    FetchOptions o = TestOptions();
    change(o);
    return o;
  };
  EXPECT_FALSE(Fetcher::Create(with([](FetchOptions& o) { o.threads = 0; }), noop).ok());
  EXPECT_FALSE(Fetcher::Create(with([](FetchOptions& o) { o.max_transfers = 1; }), noop).ok());
  EXPECT_FALSE(Fetcher::Create(with([](FetchOptions& o) { o.total_timeout_s = 0; }), noop).ok());
  EXPECT_FALSE(Fetcher::Create(with([](FetchOptions& o) { o.max_body = 0; }), noop).ok());
  EXPECT_FALSE(
      Fetcher::Create(with([](FetchOptions& o) { o.ca_file = "/nonexistent/ca.pem"; }), noop).ok());
  EXPECT_FALSE(Fetcher::Create(TestOptions(), nullptr).ok());
  EXPECT_TRUE(Fetcher::Create(TestOptions(), noop).ok());
}

TEST(FetchOptionsTest, SubmitAfterShutdownIsRefused) {
  auto fetcher = Fetcher::Create(TestOptions(), [](FetchResult&&) {});
  ASSERT_TRUE(fetcher.ok());
  (*fetcher)->Shutdown(std::chrono::milliseconds(0));
  EXPECT_FALSE((*fetcher)->Submit({.url = "http://127.0.0.1:1/"}));
  EXPECT_EQ((*fetcher)->InFlight(), 0u);
  EXPECT_EQ((*fetcher)->Stats().submitted, 0u);
}

}  // namespace
}  // namespace crawler::testing
