// Bodies: decoding (gzip pre-encoded, brotli from the server), the body cap
// on decoded bytes (a plain large body and a gzip bomb), the header cap.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "crawler/fetch.h"
#include "crawler/fetch/loopback_server.h"

namespace crawler::testing {
namespace {

using ::testing::HasSubstr;

constexpr size_t kCap = 1 << 20;

std::string HtmlOfSize(size_t size) {
  std::string html = "<html><body>";
  for (int i = 0; html.size() < size; ++i) html += "<p>paragraph " + std::to_string(i) + "</p>";
  html.resize(size);
  return html;
}

// Serves `encoded` as-is with Content-Encoding: gzip. A content provider with
// a known length keeps httplib from compressing the body a second time.
void ServeGzipped(httplib::Response& res, std::shared_ptr<const std::string> encoded) {
  res.set_header("Content-Encoding", "gzip");
  res.set_content_provider(encoded->size(), "text/html",
                           [encoded](size_t offset, size_t length, httplib::DataSink& sink) {
                             sink.write(encoded->data() + offset, length);
                             return true;
                           });
}

class FetchBodyTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    page_ = new std::string(HtmlOfSize(64 << 10));
    gzipped_page_ = new std::string(Gzip(*page_));
    // 32 MiB of zeros deflate ~1000:1: a ~32 KiB response that decodes to 32x the cap.
    bomb_ = new std::string(Gzip(std::string(32 << 20, '\0')));
  }
  static void TearDownTestSuite() {
    delete page_;
    delete gzipped_page_;
    delete bomb_;
  }

  void SetUp() override {
    auto page = std::make_shared<const std::string>(*gzipped_page_);
    server_.server().Get("/gzip", [page](const httplib::Request&, httplib::Response& res) {
      ServeGzipped(res, page);
    });
    auto bomb = std::make_shared<const std::string>(*bomb_);
    server_.server().Get("/bomb", [bomb](const httplib::Request&, httplib::Response& res) {
      ServeGzipped(res, bomb);
    });
    server_.server().Get("/page", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(*page_, "text/html");  // httplib compresses text/* itself
    });
    server_.server().Get(R"(/plain/(\d+))",
                         [](const httplib::Request& req, httplib::Response& res) {
                           const size_t size = std::stoul(req.matches[1]);
                           res.set_content(std::string(size, 'x'), "application/octet-stream");
                         });
    server_.server().Get(
        R"(/headers/(\d+))", [](const httplib::Request& req, httplib::Response& res) {
          const int count = std::stoi(req.matches[1]);
          for (int i = 0; i < count; ++i) {
            res.set_header("X-Filler-" + std::to_string(i), std::string(1000, 'h'));
          }
          res.set_content("ok", "text/plain");
        });
    server_.Start();
  }

  FetchOptions CappedOptions() const {
    FetchOptions options = TestOptions();
    options.max_body = kCap;
    return options;
  }

  static std::string* page_;
  static std::string* gzipped_page_;
  static std::string* bomb_;
  LoopbackServer server_;
};

std::string* FetchBodyTest::page_ = nullptr;
std::string* FetchBodyTest::gzipped_page_ = nullptr;
std::string* FetchBodyTest::bomb_ = nullptr;

TEST_F(FetchBodyTest, GzipBodyIsDecoded) {
  const FetchResult r = FetchOne(CappedOptions(), server_.Url("/gzip"));
  EXPECT_EQ(r.error, "");
  EXPECT_THAT(r.headers, HasSubstr("Content-Encoding: gzip"));
  EXPECT_EQ(r.body, *page_);
  EXPECT_LT(r.wire_bytes, page_->size() / 2) << "wire bytes are counted before decoding";
}

TEST_F(FetchBodyTest, BrotliChosenByServerIsDecoded) {
  const FetchResult r = FetchOne(CappedOptions(), server_.Url("/page"));
  EXPECT_EQ(r.error, "");
  // We offered br (CURLOPT_ACCEPT_ENCODING ""), and httplib prefers it.
  EXPECT_THAT(r.headers, HasSubstr("Content-Encoding: br"));
  EXPECT_EQ(r.body, *page_);
  EXPECT_LT(r.wire_bytes, page_->size() / 2);
}

TEST_F(FetchBodyTest, BodyAtTheCapIsKeptWhole) {
  const FetchResult r = FetchOne(CappedOptions(), server_.Url("/plain/" + std::to_string(kCap)));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.body.size(), kCap);
}

TEST_F(FetchBodyTest, BodyBeyondTheCapIsCutAndRecorded) {
  const FetchResult r =
      FetchOne(CappedOptions(), server_.Url("/plain/" + std::to_string(3 * kCap)));
  EXPECT_EQ(r.error, kFetchBodyTooLarge);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, std::string(kCap, 'x'));
}

TEST_F(FetchBodyTest, GzipBombIsCutOnDecodedSize) {
  ASSERT_LT(bomb_->size(), kCap / 8) << "the bomb must be small on the wire";
  const FetchResult r = FetchOne(CappedOptions(), server_.Url("/bomb"));
  EXPECT_EQ(r.error, kFetchBodyTooLarge);
  EXPECT_EQ(r.body, std::string(kCap, '\0'));
  EXPECT_LE(r.wire_bytes, bomb_->size() + r.headers.size());
}

TEST_F(FetchBodyTest, EndlessHeadersAreCut) {
  // 300 headers of ~1 KB: beyond our 256 KiB header cap.
  const FetchResult r = FetchOne(CappedOptions(), server_.Url("/headers/300"));
  EXPECT_EQ(r.error, kFetchHeadersTooLarge);
  EXPECT_EQ(r.body, "");
  // 100 of them (~100 KB) are fine.
  const FetchResult fine = FetchOne(CappedOptions(), server_.Url("/headers/100"));
  EXPECT_EQ(fine.error, "");
  EXPECT_EQ(fine.body, "ok");
}

}  // namespace
}  // namespace crawler::testing
