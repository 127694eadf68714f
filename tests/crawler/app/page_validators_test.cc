// PageValidators: the ETag and Last-Modified a recrawl sends back,
// and the body digest in the form WARC-Payload-Digest uses (RFC 4648 base32
// of SHA-1), for 2xx pages whose body arrived whole only.
#include "../../../crawler/src/app/page_validators.h"

#include <string>

#include "crawler/fetch.h"
#include "crawler/output.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

TEST(ResponseHeader, FindsTheFirstHeaderOfThatNameInAnyCase) {
  const std::string block =
      "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\netag:  \"v1\" \r\n"
      "ETag: \"v2\"\r\nLast-Modified: Wed, 01 Jan 2020 00:00:00 GMT\r\n\r\n";
  EXPECT_EQ(ResponseHeader(block, "ETag"), "\"v1\"");
  EXPECT_EQ(ResponseHeader(block, "last-modified"), "Wed, 01 Jan 2020 00:00:00 GMT");
  EXPECT_EQ(ResponseHeader(block, "Content-Length"), "");
  EXPECT_EQ(ResponseHeader("HTTP/1.1 200 OK\nETag: W/\"x\"\n", "ETag"), "W/\"x\"");
  // The status line is not a header, whatever it holds.
  EXPECT_EQ(ResponseHeader("ETag: no\r\n", "ETag"), "");
}

FetchResult Page(long status, std::string body) {
  FetchResult result;
  result.status = status;
  result.headers = "HTTP/1.1 200 OK\r\nETag: \"e\"\r\nLast-Modified: lm\r\n\r\n";
  result.body = std::move(body);
  return result;
}

TEST(PageValidators, DigestIsWarcsBase32Sha1) {
  PageRecord record;
  NoteValidators(ValidatorsOf(Page(200, "abc")), &record);
  // sha1("abc") = a9993e36 4706816a ba3e2571 7850c26c 9cd0d89d (FIPS 180-2).
  EXPECT_EQ(record.digest, "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
  EXPECT_EQ(record.etag, "\"e\"");
  EXPECT_EQ(record.last_modified, "lm");
}

TEST(PageValidators, OnlyWholeTwoHundredsHaveThem) {
  for (const long status : {301L, 304L, 404L, 500L}) {
    const PageValidators v = ValidatorsOf(Page(status, "x"));
    EXPECT_TRUE(v.sha1.empty() && v.etag.empty()) << status;
  }
  FetchResult cut = Page(200, "partial");
  cut.error = std::string(kFetchBodyTooLarge);
  EXPECT_TRUE(ValidatorsOf(cut).sha1.empty());
  EXPECT_EQ(ValidatorsOf(Page(204, "")).sha1.size(), 20u);
}

}  // namespace
}  // namespace crawler
