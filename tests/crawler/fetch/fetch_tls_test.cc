// TLS: peers are verified. testdata/ holds a self-signed certificate for
// 127.0.0.1 and localhost (valid 2020-2120), made once with the openssl tool;
// trusting it through FetchOptions::ca_file is the only way in.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

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

}  // namespace
}  // namespace crawler::testing
