// ResolveLink: links as written in pages, resolved as a browser does and
// normalized for the seen-check, or refused with a reason.
#include <string>

#include "crawler/url.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class ResolveLinkTest : public ::testing::Test {
 protected:
  std::string Resolve(std::string_view href, const NormalizeOptions& options = {}) {
    const absl::StatusOr<std::string> link = ResolveLink(base_, href, options);
    if (!link.ok()) {
      EXPECT_EQ(link.status().code(), absl::StatusCode::kInvalidArgument);
      return "ERROR: " + std::string(link.status().message());
    }
    return *link;
  }

  const Url base_ = *Url::Parse("http://a.com/b/c/d;p?q");
};

// RFC 3986 section 5.4.1, which the WHATWG Standard agrees with for http.
TEST_F(ResolveLinkTest, Rfc3986NormalExamples) {
  EXPECT_EQ(Resolve("g"), "http://a.com/b/c/g");
  EXPECT_EQ(Resolve("./g"), "http://a.com/b/c/g");
  EXPECT_EQ(Resolve("g/"), "http://a.com/b/c/g/");
  EXPECT_EQ(Resolve("/g"), "http://a.com/g");
  EXPECT_EQ(Resolve("//g"), "http://g/");
  EXPECT_EQ(Resolve("?y"), "http://a.com/b/c/d;p?y");
  EXPECT_EQ(Resolve("g?y"), "http://a.com/b/c/g?y");
  EXPECT_EQ(Resolve("#s"), "http://a.com/b/c/d;p?q");  // fragment dropped from the key
  EXPECT_EQ(Resolve("g#s"), "http://a.com/b/c/g");
  EXPECT_EQ(Resolve(";x"), "http://a.com/b/c/;x");
  EXPECT_EQ(Resolve(""), "http://a.com/b/c/d;p?q");
  EXPECT_EQ(Resolve("."), "http://a.com/b/c/");
  EXPECT_EQ(Resolve(".."), "http://a.com/b/");
  EXPECT_EQ(Resolve("../g"), "http://a.com/b/g");
  EXPECT_EQ(Resolve("../.."), "http://a.com/");
  EXPECT_EQ(Resolve("../../g"), "http://a.com/g");
  EXPECT_EQ(Resolve("../../../../g"), "http://a.com/g");
  EXPECT_EQ(Resolve("/./g"), "http://a.com/g");
  EXPECT_EQ(Resolve("g;x=1/../y"), "http://a.com/b/c/y");
}

TEST_F(ResolveLinkTest, WhatwgBrowserQuirks) {
  EXPECT_EQ(Resolve("\\g\\h"), "http://a.com/g/h");
  EXPECT_EQ(Resolve("  g  "), "http://a.com/b/c/g");
  EXPECT_EQ(Resolve("g\th\ni"), "http://a.com/b/c/ghi");
  EXPECT_EQ(Resolve("http:g"), "http://a.com/b/c/g");  // same scheme: relative
  EXPECT_EQ(Resolve("https:g"), "https://g/");         // other special scheme: absolute
  EXPECT_EQ(Resolve("HTTP://OTHER.com:80"), "http://other.com/");
  EXPECT_EQ(Resolve("///g"), "http://g/");
  EXPECT_EQ(Resolve("g h"), "http://a.com/b/c/g%20h");
  EXPECT_EQ(Resolve("\xC3\xA9t\xC3\xA9?\xC3\xA9"), "http://a.com/b/c/%C3%A9t%C3%A9?%C3%A9");
  EXPECT_EQ(Resolve("%2e%2E/g"), "http://a.com/b/g");
  EXPECT_EQ(Resolve("//B\xC3\xBC"
                    "cher.de/x"),
            "http://xn--bcher-kva.de/x");
}

TEST_F(ResolveLinkTest, NormalizedForTheSeenCheck) {
  EXPECT_EQ(Resolve("%7Euser/%c3%a9#top"), "http://a.com/b/c/~user/%C3%A9");
  const Url https_base = *Url::Parse("https://www.example.com/dir/page.html");
  EXPECT_EQ(*ResolveLink(https_base, "//cdn.example.net/app.js"), "https://cdn.example.net/app.js");
  EXPECT_EQ(*ResolveLink(https_base, "other.html"), "https://www.example.com/dir/other.html");
}

// Userinfo a link writes is dropped on either resolver path, and a link
// without any keeps every '@' of its path and query (the resolver skips
// the userinfo scan only when the parsed URL has no userinfo).
TEST_F(ResolveLinkTest, DropsUserinfoAndKeepsOtherAts) {
  EXPECT_EQ(Resolve("http://u:p@b.com/x%41?q@r#f@g"), "http://b.com/xA?q@r");
  EXPECT_EQ(Resolve("//user@b.com:81/"), "http://b.com:81/");
  EXPECT_EQ(Resolve("https://u%40x:p@[::1]:8443/a@b"), "https://[::1]:8443/a@b");
  EXPECT_EQ(Resolve("x@y?a@b"), "http://a.com/b/c/x@y?a@b");
  EXPECT_EQ(Resolve("http://b.com/@"), "http://b.com/@");
  const Url with_userinfo = *Url::Parse("http://u:p@c.com/d/e");
  EXPECT_EQ(*ResolveLink(with_userinfo, "f@g"), "http://c.com/d/f@g");
  EXPECT_EQ(*ResolveLink(with_userinfo, "f"), "http://c.com/d/f");
}

TEST_F(ResolveLinkTest, RefusesOtherSchemesWithTheirName) {
  EXPECT_EQ(Resolve("mailto:someone@example.com"), "ERROR: scheme 'mailto' is not crawled");
  EXPECT_EQ(Resolve("javascript:void(0)"), "ERROR: scheme 'javascript' is not crawled");
  EXPECT_EQ(Resolve("FTP://a.com/f"), "ERROR: scheme 'ftp' is not crawled");
  EXPECT_EQ(Resolve("data:text/plain,hi"), "ERROR: scheme 'data' is not crawled");
  EXPECT_EQ(Resolve("tel:+123"), "ERROR: scheme 'tel' is not crawled");
}

TEST_F(ResolveLinkTest, RefusesUnparsableLinksSayingWhy) {
  EXPECT_THAT(Resolve("http://"), StartsWith("ERROR: unparsable URL: "));
  EXPECT_THAT(Resolve("http://a b.com/"), HasSubstr("host"));
  EXPECT_THAT(Resolve("http://[::1/"), HasSubstr("IPv6"));
  EXPECT_THAT(Resolve("http://a.com:99999/"), HasSubstr("port"));
  EXPECT_THAT(Resolve("http://1.2.3.999/"), HasSubstr("IPv4"));
  EXPECT_THAT(Resolve("https://user@/"), HasSubstr("host"));
}

TEST_F(ResolveLinkTest, RefusesLinksLongerThanTheLimit) {
  EXPECT_THAT(Resolve(std::string(3000, 'x')), HasSubstr("bytes, longer than the limit of 2048"));
  NormalizeOptions options;
  options.max_length = 20;
  EXPECT_EQ(Resolve("/short", options), "http://a.com/short");
  EXPECT_THAT(Resolve("/much-longer-path", options), HasSubstr("limit of 20"));
}

}  // namespace
}  // namespace crawler
