// TLS: peers are verified. testdata/ holds a self-signed certificate for
// 127.0.0.1 and localhost (valid 2020-2120), made once with the openssl tool;
// trusting it through FetchOptions::ca_file is the only way in.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "crawler/fetch.h"
#include "crawler/fetch/loopback_server.h"

namespace crawler::testing {
namespace {

const std::string kTestData = std::string(CRAWL_SOURCE_DIR) + "/tests/crawler/fetch/testdata/";
const std::string kCert = kTestData + "loopback-cert.pem";
const std::string kKey = kTestData + "loopback-key.pem";

class FetchTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.is_valid()) << "cannot load " << kCert;
    server_.Get("/secure", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("<html>secret</html>", "text/html");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  void TearDown() override {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  std::string Url(const std::string& host) const {
    return "https://" + host + ":" + std::to_string(port_) + "/secure";
  }

  httplib::SSLServer server_{kCert.c_str(), kKey.c_str()};
  std::thread thread_;
  int port_ = 0;
};

TEST_F(FetchTlsTest, TrustedCertificateFetchesOverTls) {
  FetchOptions options = TestOptions();
  options.ca_file = kCert;
  for (const char* host : {"127.0.0.1", "localhost"}) {
    const FetchResult r = FetchOne(options, Url(host));
    EXPECT_EQ(r.error, "") << host;
    EXPECT_EQ(r.status, 200) << host;
    EXPECT_EQ(r.body, "<html>secret</html>") << host;
    // We offered h2 over ALPN; httplib speaks only HTTP/1.1, and we fall back.
    EXPECT_THAT(r.headers, ::testing::StartsWith("HTTP/1.1 200")) << host;
  }
}

TEST_F(FetchTlsTest, UntrustedCertificateIsATlsError) {
  const FetchResult r = FetchOne(TestOptions(), Url("127.0.0.1"));
  EXPECT_EQ(r.error, kFetchTls);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.body, "");
}

TEST_F(FetchTlsTest, PlainHttpToATlsPortIsNotASuccess) {
  FetchOptions options = TestOptions();
  options.ca_file = kCert;
  const FetchResult r = FetchOne(options, "http://127.0.0.1:" + std::to_string(port_) + "/secure");
  EXPECT_NE(r.error, "");
  EXPECT_NE(r.status, 200);
}

// The TLS options people expect from wget and curl.
TEST_F(FetchTlsTest, NoCheckCertificateFetchesFromAnUntrustedServer) {
  FetchOptions options = TestOptions();
  options.verify_peer = false;  // --no-check-certificate
  const FetchResult r = FetchOne(options, Url("127.0.0.1"));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.status, 200);
}

// --resolve, as curl's CURLOPT_RESOLVE: the name stays in the URL (and in
// TLS's check: the certificate is for 127.0.0.1 and localhost, so the name
// "localhost" resolved to 127.0.0.1 verifies), the address is the one given.
TEST_F(FetchTlsTest, ResolveConnectsANameToTheGivenAddress) {
  FetchOptions options = TestOptions();
  options.ca_file = kCert;
  const std::string name = "crawl-resolve.invalid";
  const std::string url = "https://" + name + ":" + std::to_string(port_) + "/secure";
  EXPECT_EQ(FetchOne(options, url).error, kFetchDns);  // .invalid never resolves
  options.resolve = {name + ":" + std::to_string(port_) + ":127.0.0.1"};
  const FetchResult named = FetchOne(options, url);
  EXPECT_EQ(named.error, kFetchTls);  // reached, and the certificate is not for that name
  options.verify_peer = false;
  const FetchResult reached = FetchOne(options, url);
  EXPECT_EQ(reached.error, "");
  EXPECT_EQ(reached.body, "<html>secret</html>");
  options.verify_peer = true;
  options.resolve = {"localhost:" + std::to_string(port_) + ":127.0.0.1"};
  EXPECT_EQ(FetchOne(options, Url("localhost")).status, 200);
}

TEST(FetchTlsOptions, BadResolveEntriesAndUnreadableFilesAreRefused) {
  const auto refused = [](const std::function<void(FetchOptions&)>& change) {
    FetchOptions options = TestOptions();
    change(options);
    absl::StatusOr<std::unique_ptr<Fetcher>> fetcher =
        Fetcher::Create(options, [](FetchResult&&) {});
    return fetcher.ok() ? std::string() : std::string(fetcher.status().message());
  };
  EXPECT_EQ(refused([](FetchOptions& o) { o.resolve = {"a.test:80:127.0.0.1"}; }), "");
  EXPECT_THAT(refused([](FetchOptions& o) { o.resolve = {"a.test:127.0.0.1"}; }),
              ::testing::StartsWith("--resolve 'a.test:127.0.0.1': "));
  EXPECT_THAT(refused([](FetchOptions& o) { o.resolve = {"a.test:99999:127.0.0.1"}; }),
              ::testing::HasSubstr("the port is not a number in [1, 65535]"));
  EXPECT_THAT(refused([](FetchOptions& o) { o.resolve = {"a.test:80:"}; }),
              ::testing::HasSubstr("no ADDRESS"));
  EXPECT_THAT(refused([](FetchOptions& o) { o.client_cert = "/nonexistent/client.pem"; }),
              ::testing::StartsWith("--certificate /nonexistent/client.pem: cannot read it"));
  EXPECT_THAT(refused([](FetchOptions& o) { o.client_key = kKey; }),
              ::testing::StartsWith("--private-key needs --certificate"));
}

// A server that asks for a client certificate (signed by the CA it trusts,
// here the loopback certificate itself) gets one from --certificate and
// --private-key; without them the handshake fails.
TEST(FetchTlsOptions, ClientCertificateIsSentWhenGiven) {
  httplib::SSLServer server(kCert.c_str(), kKey.c_str(), kCert.c_str());
  ASSERT_TRUE(server.is_valid());
  server.Get("/mtls", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("<html>client ok</html>", "text/html");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread thread([&server] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const std::string url = "https://127.0.0.1:" + std::to_string(port) + "/mtls";
  FetchOptions options = TestOptions();
  options.ca_file = kCert;
  EXPECT_NE(FetchOne(options, url).status, 200);
  options.client_cert = kCert;
  options.client_key = kKey;
  const FetchResult r = FetchOne(options, url);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.body, "<html>client ok</html>");
  server.stop();
  thread.join();
}

}  // namespace
}  // namespace crawler::testing
