// FetchOptions::accept_type (--accept-type / --reject-type): a refused 2xx
// response is aborted when its body starts, so a large one is not
// downloaded; other statuses and FetchRequest::any_type are not judged.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "crawler/fetch.h"
#include "crawler/fetch/loopback_server.h"

namespace crawler::testing {
namespace {

constexpr size_t kBigBody = 32 << 20;  // 32 MiB: far more than a refused fetch may receive

class FetchTypeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.server().Get("/big.pdf", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(kBigBody, '%'), "application/pdf");
    });
    server_.server().Get("/page", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("<html><body>hi</body></html>", "text/html; charset=utf-8");
    });
    server_.server().Get("/empty.pdf", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("", "application/pdf");
    });
    server_.server().Get("/missing.pdf", [](const httplib::Request&, httplib::Response& res) {
      res.status = 404;
      res.set_content("no such pdf", "application/pdf");
    });
    server_.server().Get("/untyped", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("raw bytes", "");
    });
    server_.server().Get("/no-content",
                         [](const httplib::Request&, httplib::Response& res) { res.status = 204; });
    server_.Start();
  }

  // Only text/html is wanted.
  static FetchOptions HtmlOnly() {
    FetchOptions options = TestOptions();
    options.accept_type = [](std::string_view type) {
      return type.substr(0, type.find(';')) == "text/html";
    };
    return options;
  }

  LoopbackServer server_;
};

TEST_F(FetchTypeTest, RefusedTypeIsAbortedAfterItsHeaders) {
  const FetchResult r = FetchOne(HtmlOnly(), server_.Url("/big.pdf"));
  EXPECT_EQ(r.error, kFetchTypeRejected);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/pdf");
  EXPECT_TRUE(r.body.empty());
  EXPECT_EQ(server_.Requests(), 1u) << "the server saw the request";
  // The headers and at most what was in flight when the first chunk came.
  EXPECT_LT(r.wire_bytes, kBigBody / 8) << "the refused body was downloaded";
}

TEST_F(FetchTypeTest, AcceptedTypeIsFetchedWhole) {
  const FetchResult r = FetchOne(HtmlOnly(), server_.Url("/page"));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.body, "<html><body>hi</body></html>");
}

TEST_F(FetchTypeTest, RefusedTypeWithoutABodyIsRecordedTheSameWay) {
  const FetchResult r = FetchOne(HtmlOnly(), server_.Url("/empty.pdf"));
  EXPECT_EQ(r.error, kFetchTypeRejected);
  EXPECT_EQ(r.status, 200);
}

TEST_F(FetchTypeTest, ErrorPagesAreNotJudged) {
  const FetchResult r = FetchOne(HtmlOnly(), server_.Url("/missing.pdf"));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, "no such pdf");
}

TEST_F(FetchTypeTest, MissingContentTypeReachesTheFilterAsEmpty) {
  std::string seen = "not called";
  FetchOptions options = TestOptions();
  options.accept_type = [&seen](std::string_view type) {
    seen = std::string(type);
    return false;
  };
  const FetchResult r = FetchOne(options, server_.Url("/untyped"));
  EXPECT_EQ(r.error, kFetchTypeRejected);
  EXPECT_EQ(seen, "");
}

TEST_F(FetchTypeTest, NoContentWithoutATypeIsNotJudged) {
  const FetchResult r = FetchOne(HtmlOnly(), server_.Url("/no-content"));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.status, 204);
}

TEST_F(FetchTypeTest, AnyTypeRequestsAreNotJudged) {
  ResultCollector results;
  auto fetcher = Fetcher::Create(HtmlOnly(), results.Callback());
  ASSERT_TRUE(fetcher.ok()) << fetcher.status();
  FetchRequest request;
  request.url = server_.Url("/empty.pdf");
  request.tag = 7;
  request.any_type = true;  // as robots.txt and sitemaps are fetched
  ASSERT_TRUE((*fetcher)->Submit(std::move(request)));
  const std::vector<FetchResult> done = results.WaitFor(1, std::chrono::seconds(20));
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].error, "");
  EXPECT_EQ(done[0].status, 200);
}

TEST_F(FetchTypeTest, WithoutAFilterEveryTypeIsFetched) {
  FetchOptions options = TestOptions();
  options.max_body = 1 << 20;
  const FetchResult r = FetchOne(options, server_.Url("/big.pdf"));
  EXPECT_EQ(r.error, kFetchBodyTooLarge);  // today's behaviour: downloaded up to the cap
  EXPECT_EQ(r.body.size(), size_t{1} << 20);
}

}  // namespace
}  // namespace crawler::testing
