// Url: the accessors over the WHATWG serialization, and the parser's
// browser behaviours (source: the WHATWG URL Standard unless named "Ours").
#include "crawler/url.h"

#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

using ::testing::HasSubstr;

Url MustParse(std::string_view input, const Url* base = nullptr) {
  absl::StatusOr<Url> url = Url::Parse(input, base);
  EXPECT_TRUE(url.ok()) << input << ": " << url.status();
  return url.ok() ? *std::move(url) : *Url::Parse("http://invalid.test/");
}

TEST(UrlTest, HeaderExampleHolds) {
  const absl::StatusOr<Url> page = Url::Parse("HTTP://Example.COM:80/a/b?x#y");
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->href(), "http://example.com/a/b?x#y");
  EXPECT_EQ(page->port(), -1);
  EXPECT_EQ(page->Authority(), "http://example.com:80");
  const absl::StatusOr<std::string> next = ResolveLink(*page, "../c%7e?q#frag");
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(*next, "http://example.com/c~?q");
}

TEST(UrlTest, AccessorsAreViewsOfTheSerialization) {
  const Url url = MustParse("HTTP://User:Pass@Example.COM:8080/a/./b/../c?q=1#frag");
  EXPECT_EQ(url.href(), "http://User:Pass@example.com:8080/a/c?q=1#frag");
  EXPECT_EQ(url.scheme(), "http");
  EXPECT_EQ(url.host(), "example.com");
  EXPECT_EQ(url.port(), 8080);
  EXPECT_EQ(url.EffectivePort(), 8080);
  EXPECT_EQ(url.path(), "/a/c");
  EXPECT_EQ(url.query(), "q=1");
  EXPECT_EQ(url.fragment(), "frag");
  EXPECT_EQ(url.Authority(), "http://example.com:8080");
  EXPECT_TRUE(url.IsHttp());
  EXPECT_TRUE(url.has_host());
  EXPECT_FALSE(url.has_opaque_path());
}

TEST(UrlTest, WhatwgDefaultPortIsDroppedButEffective) {
  const Url url = MustParse("https://example.com:443/");
  EXPECT_EQ(url.href(), "https://example.com/");
  EXPECT_EQ(url.port(), -1);
  EXPECT_EQ(url.EffectivePort(), 443);
  EXPECT_EQ(url.Authority(), "https://example.com:443");
  EXPECT_EQ(MustParse("http://example.com/").Authority(), "http://example.com:80");
  EXPECT_EQ(MustParse("ws://example.com/").EffectivePort(), 80);
  EXPECT_EQ(MustParse("ftp://example.com:21/").href(), "ftp://example.com/");
  EXPECT_EQ(MustParse("http://example.com:0443/").port(), 443);
}

TEST(UrlTest, WhatwgEmptyQueryAndFragmentDifferFromAbsentOnes) {
  const Url empty = MustParse("http://a.com/?#");
  EXPECT_TRUE(empty.has_query());
  EXPECT_TRUE(empty.has_fragment());
  EXPECT_EQ(empty.query(), "");
  EXPECT_EQ(empty.path(), "/");
  const Url none = MustParse("http://a.com");
  EXPECT_EQ(none.href(), "http://a.com/");
  EXPECT_FALSE(none.has_query());
  EXPECT_FALSE(none.has_fragment());
}

TEST(UrlTest, WhatwgOpaquePathsAndNonHttpSchemes) {
  const Url mail = MustParse("mailto:Someone@Example.com?subject=hi");
  EXPECT_TRUE(mail.has_opaque_path());
  EXPECT_FALSE(mail.has_host());
  EXPECT_FALSE(mail.IsHttp());
  EXPECT_EQ(mail.scheme(), "mailto");
  EXPECT_EQ(mail.path(), "Someone@Example.com");
  EXPECT_EQ(mail.query(), "subject=hi");
  EXPECT_EQ(mail.EffectivePort(), -1);
  // A host-less path that starts with "//" is written with "/." in front.
  const Url dotted = MustParse("web+demo:/.//not-a-host/");
  EXPECT_EQ(dotted.href(), "web+demo:/.//not-a-host/");
  EXPECT_EQ(dotted.path(), "//not-a-host/");
  EXPECT_EQ(MustParse("FILE:///C|/x").href(), "file:///C:/x");
}

TEST(UrlTest, WhatwgStripsControlsTabsAndNewlines) {
  EXPECT_EQ(MustParse(std::string(" \x01http://ex\nample.com/a\r/b\t \0", 30)).href(),
            "http://example.com/a/b");
  EXPECT_EQ(MustParse("ht\ttp://a.com/").href(), "http://a.com/");
}

TEST(UrlTest, WhatwgBackslashesAreSlashesInSpecialUrls) {
  EXPECT_EQ(MustParse("http:\\\\example.com\\a\\b").href(), "http://example.com/a/b");
  EXPECT_EQ(MustParse("foo://h/a\\b").href(), "foo://h/a\\b");
}

TEST(UrlTest, WhatwgPercentEncodesPerComponent) {
  EXPECT_EQ(MustParse("http://a.com/\xC3\xA4 b\"<>`{}^").href(),
            "http://a.com/%C3%A4%20b%22%3C%3E%60%7B%7D%5E");
  EXPECT_EQ(MustParse("http://a.com/?a b'\"<>`").href(), "http://a.com/?a%20b%27%22%3C%3E`");
  EXPECT_EQ(MustParse("foo://a.com/?a'").href(), "foo://a.com/?a'");  // ' only in special
  EXPECT_EQ(MustParse("http://a.com/#a b`<").href(), "http://a.com/#a%20b%60%3C");
  EXPECT_EQ(MustParse("http://us er:p@ss@a.com/").href(), "http://us%20er:p%40ss@a.com/");
  // Existing escapes are left as written (normalization is NormalizeForSeen's job).
  EXPECT_EQ(MustParse("http://a.com/%7e%2F").href(), "http://a.com/%7e%2F");
}

TEST(UrlTest, WhatwgPortsMustBeDigitsInRange) {
  EXPECT_EQ(MustParse("http://a.com:/").href(), "http://a.com/");
  EXPECT_EQ(MustParse("http://a.com:65535/").port(), 65535);
  for (const char* input : {"http://a.com:65536/", "http://a.com:8o/", "http://a.com:-1/",
                            "http://a.com:99999999999999999999/"}) {
    const absl::StatusOr<Url> url = Url::Parse(input);
    ASSERT_FALSE(url.ok()) << input;
    EXPECT_THAT(std::string(url.status().message()), HasSubstr("port")) << input;
  }
}

TEST(UrlTest, WhatwgFailuresSayWhy) {
  EXPECT_THAT(std::string(Url::Parse("/relative").status().message()), HasSubstr("without a base"));
  EXPECT_THAT(std::string(Url::Parse("http://").status().message()), HasSubstr("host"));
  EXPECT_THAT(std::string(Url::Parse("http://user@/x").status().message()), HasSubstr("host"));
  EXPECT_THAT(std::string(Url::Parse("http://a b/").status().message()), HasSubstr("host"));
  const Url mail = MustParse("mailto:x");
  EXPECT_THAT(std::string(Url::Parse("y", &mail).status().message()), HasSubstr("opaque"));
  EXPECT_EQ(MustParse("#top", &mail).href(), "mailto:x#top");
}

TEST(UrlTest, IsACopyableValue) {
  std::string copied_href;
  Url copy = MustParse("http://a.com/x");
  {
    Url original = MustParse("https://example.org:8443/p/q?r#s");
    copy = original;
    original = MustParse("http://other.test/");
  }
  EXPECT_EQ(copy.href(), "https://example.org:8443/p/q?r#s");
  EXPECT_EQ(copy.host(), "example.org");
  EXPECT_EQ(copy.path(), "/p/q");
  EXPECT_EQ(copy.query(), "r");
  EXPECT_EQ(copy, MustParse("HTTPS://EXAMPLE.ORG:8443/p/q?r#s"));
}

}  // namespace
}  // namespace crawler
