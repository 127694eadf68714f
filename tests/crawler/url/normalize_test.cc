// NormalizeForSeen: the seen-check key. Each test is named after its
// source: "Whatwg" (the URL Standard's serialization, which the key starts
// from), "Option" (our opt-in rewrites, off by default), or neither (the
// key's own normalization: fragment removed, unreserved escapes decoded,
// other escapes upper-cased).
#include <string>

#include "crawler/url.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

using ::testing::HasSubstr;

std::string Key(std::string_view input, const NormalizeOptions& options = {}) {
  const absl::StatusOr<Url> url = Url::Parse(input);
  if (!url.ok()) return "PARSE FAIL";
  const absl::StatusOr<std::string> key = NormalizeForSeen(*url, options);
  return key.ok() ? *key : "ERROR: " + std::string(key.status().message());
}

TEST(NormalizeTest, WhatwgSchemeAndHostAreLowerCasedPathIsNot) {
  EXPECT_EQ(Key("HTTP://EXAMPLE.com/A/B"), "http://example.com/A/B");
}

TEST(NormalizeTest, WhatwgDefaultPortDroppedOtherPortsKept) {
  EXPECT_EQ(Key("http://a.com:80/"), "http://a.com/");
  EXPECT_EQ(Key("https://a.com:443/"), "https://a.com/");
  EXPECT_EQ(Key("https://a.com:80/"), "https://a.com:80/");
}

TEST(NormalizeTest, WhatwgEmptyPathIsSlashAndDotSegmentsResolved) {
  EXPECT_EQ(Key("http://a.com"), "http://a.com/");
  EXPECT_EQ(Key("http://a.com/x/./y/../z/%2e%2E/w"), "http://a.com/x/w");
}

TEST(NormalizeTest, FragmentRemoved) {
  EXPECT_EQ(Key("http://a.com/x#section"), "http://a.com/x");
  EXPECT_EQ(Key("http://a.com/x?q#"), "http://a.com/x?q");
}

TEST(NormalizeTest, UnreservedEscapesDecoded) {
  EXPECT_EQ(Key("http://a.com/%7Euser/%41%62%2D%2e%5F%30"), "http://a.com/~user/Ab-._0");
  EXPECT_EQ(Key("http://a.com/?q=%7e%61"), "http://a.com/?q=~a");
}

TEST(NormalizeTest, RemainingEscapesUpperCased) {
  EXPECT_EQ(Key("http://a.com/a%2fb%c3%a9?x=%3d%3D"), "http://a.com/a%2Fb%C3%A9?x=%3D%3D");
  EXPECT_EQ(Key("http://a.com/%e2%82%ac"), "http://a.com/%E2%82%AC");
}

TEST(NormalizeTest, ReservedEscapesStayEncodedAndNothingElseChanges) {
  // %2F, %3F, %25, %26 mean something different from '/', '?', '%', '&'.
  EXPECT_EQ(Key("http://a.com/a%2Fb%3Fc%25d?x=%26"), "http://a.com/a%2Fb%3Fc%25d?x=%26");
  // One decoding pass only: %257E is "%7E" literally, not "~".
  EXPECT_EQ(Key("http://a.com/%257E"), "http://a.com/%257E");
  // Malformed escapes are kept as written.
  EXPECT_EQ(Key("http://a.com/%zz%4"), "http://a.com/%zz%4");
  // An empty query differs from none; order and case of the query are kept.
  EXPECT_EQ(Key("http://a.com/?"), "http://a.com/?");
  EXPECT_EQ(Key("http://a.com/?B=1&a=2"), "http://a.com/?B=1&a=2");
  // A trailing slash and "index.html" are significant.
  EXPECT_EQ(Key("http://a.com/dir/index.html"), "http://a.com/dir/index.html");
}

// Userinfo is dropped, so credentials a page or a redirect
// wrote are never queued, sent or recorded.
TEST(NormalizeTest, UserinfoIsDropped) {
  EXPECT_EQ(Key("http://u:p@a.com/dir/index.html"), "http://a.com/dir/index.html");
  EXPECT_EQ(Key("https://u%40x:p@a.com:8443/?q@r"), "https://a.com:8443/?q@r");
  EXPECT_EQ(Key("http://user@a.com/x@y"), "http://a.com/x@y");
  EXPECT_EQ(WithoutUserinfo("http://u:p@a.com/x"), "http://a.com/x");
  EXPECT_EQ(WithoutUserinfo("http://a.com/x@y"), "http://a.com/x@y");
  EXPECT_EQ(WithoutUserinfo("/relative@x"), "/relative@x");
  EXPECT_EQ(Key("http://u@[::1]:81/@"), "http://[::1]:81/@");
  EXPECT_EQ(Key("http://a.com:81/?@#@"), "http://a.com:81/?@");
}

TEST(NormalizeTest, KeysAreIdempotent) {
  for (const char* input : {"http://a.com/%7e%2f?%41#x",
                            "HTTPS://B\xC3\xBC"
                            "cher.de:443/a b",
                            "http://[::1]:81/%2e%2e%2fx", "http://a.com/?%zz%e9"}) {
    const std::string once = Key(input);
    EXPECT_EQ(Key(once), once) << input;
  }
}

// Found by the url fuzzer (tests/fuzz/crashes/crawler_url/normalize-not-idempotent.txt):
// decoding "%32" right after a stray "%3" made a new escape "%32", which the
// next normalization decoded again, so one page had two keys.
TEST(NormalizeTest, DecodingNeverJoinsAStrayPercentIntoANewEscape) {
  for (const char* input : {"https://a.example/%3%32", "http://a.com/%%33%34", "http://a.com/%%331",
                            "http://a.com/x%4%31y?q=%2%35", "http://a.com/100%25%32"}) {
    const std::string once = Key(input);
    EXPECT_EQ(Key(once), once) << input;
  }
  EXPECT_EQ(Key("https://a.example/%3%32"), "https://a.example/%3%32");
  EXPECT_EQ(Key("https://a.example/%3%32x%41"), "https://a.example/%3%32xA");
}

// "%41" decoded right after a stray '%' made "/%A", a
// half escape that was not there (what the server receives changed).
TEST(NormalizeTest, DecodingNeverPutsAHexDigitAfterAStrayPercent) {
  EXPECT_EQ(Key("http://a.com/%%41"), "http://a.com/%%41");
  EXPECT_EQ(Key("http://a.com/%%41/"), "http://a.com/%%41/");
  EXPECT_EQ(Key("http://a.com/x%?q=%%62"), "http://a.com/x%?q=%%62");
  EXPECT_EQ(Key("http://a.com/%%67"), "http://a.com/%g");      // not a hex digit: no escape formed
  EXPECT_EQ(Key("http://a.com/%20%41"), "http://a.com/%20A");  // a whole escape before: fine
}

TEST(NormalizeTest, OnlyHttpAndHttpsAreKeyed) {
  EXPECT_EQ(Key("ftp://a.com/"), "ERROR: scheme 'ftp' is not crawled");
  EXPECT_EQ(Key("mailto:x@y.z"), "ERROR: scheme 'mailto' is not crawled");
}

TEST(NormalizeTest, MaxLengthDefault2048) {
  const std::string prefix = "http://a.com/";
  const std::string at_limit = prefix + std::string(2048 - prefix.size(), 'x');
  EXPECT_EQ(Key(at_limit), at_limit);
  EXPECT_THAT(Key(at_limit + "y"), HasSubstr("2049 bytes, longer than the limit of 2048"));
  // The limit applies to the key, after the fragment is gone and escapes decoded.
  EXPECT_EQ(Key(at_limit + "#fragment"), at_limit);
  EXPECT_EQ(Key(prefix + std::string(2048 - prefix.size() - 1, 'x') + "%7E"),
            prefix + std::string(2048 - prefix.size() - 1, 'x') + "~");
  NormalizeOptions small;
  small.max_length = 16;
  EXPECT_EQ(Key("http://a.com/abc", small), "http://a.com/abc");
  EXPECT_THAT(Key("http://a.com/abcd", small), HasSubstr("limit of 16"));
}

TEST(NormalizeTest, OptionSortQueryIsOffByDefault) {
  EXPECT_EQ(Key("http://a.com/?b=1&a=2&a=1"), "http://a.com/?b=1&a=2&a=1");
  NormalizeOptions options;
  options.sort_query = true;
  EXPECT_EQ(Key("http://a.com/?b=1&a=2&a=1", options), "http://a.com/?a=1&a=2&b=1");
  EXPECT_EQ(Key("http://a.com/?", options), "http://a.com/?");
  EXPECT_EQ(Key("http://a.com/x", options), "http://a.com/x");
}

TEST(NormalizeTest, OptionStripSessionIdsIsOffByDefault) {
  const char* input = "http://a.com/cart;JSESSIONID=ABC123?item=5&PHPSESSID=xyz&sid=1";
  EXPECT_EQ(Key(input), input);
  NormalizeOptions options;
  options.strip_session_ids = true;
  EXPECT_EQ(Key(input, options), "http://a.com/cart?item=5");
  EXPECT_EQ(Key("http://a.com/?sid=1&ASPSESSIONIDQQ=2", options), "http://a.com/");
  EXPECT_EQ(Key("http://a.com/?side=1&sid", options), "http://a.com/?side=1");
  EXPECT_EQ(Key("http://a.com/a;jsessionid=1/b", options), "http://a.com/a/b");
  EXPECT_EQ(Key("http://a.com/?q=1", options), "http://a.com/?q=1");
  // Found by the url fuzzer (tests/fuzz/crashes/crawler_url/strip-session-ids-*.txt):
  // every path occurrence goes in one pass, and the authority is never touched.
  EXPECT_EQ(Key("http://a.com/x;jsessionid=1/y;JSESSIONID=2", options), "http://a.com/x/y");
  EXPECT_EQ(Key("http://;jsessionid=1/", options), Key("http://;jsessionid=1/"));
  EXPECT_NE(Key("http://;jsessionid=1/"), "PARSE FAIL");
  const std::string once = Key("http://a.com/x;jsessionid=1/y;jsessionid=2?sid=3", options);
  EXPECT_EQ(Key(once, options), once);
  // Found by the url fuzzer (strip-session-ids-leaves-dot-segment.txt): a
  // segment that is a dot segment once its session id goes is resolved, as
  // parsing the key again would resolve it.
  EXPECT_EQ(Key("http://a.com/b/c/.;jsessionid=1", options), "http://a.com/b/c/");
  EXPECT_EQ(Key("http://a.com/b/c/..;jsessionid=1?q", options), "http://a.com/b/?q");
  EXPECT_EQ(Key("http://a.com/b/..;jsessionid=1/..;jsessionid=2/c", options), "http://a.com/c");
}

}  // namespace
}  // namespace crawler
