// SplitUrl: the one split of a link's URL that the link filter and the trap
// guard share; its host is HostOfUrl's, byte for byte.
#include "crawler/url_parts.h"

#include <iterator>
#include <random>
#include <string>
#include <string_view>

#include "crawler/link_filter.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

TEST(SplitUrl, AuthorityHostPathAndQuery) {
  const std::string url = "http://u@a.b:81/x/y?q#f";
  const UrlParts parts = SplitUrl(url);
  EXPECT_EQ(parts.authority, "u@a.b:81");
  EXPECT_EQ(parts.host, "a.b");
  EXPECT_EQ(parts.path, "/x/y");
  EXPECT_TRUE(parts.has_query);
}

TEST(SplitUrl, PathEndsAtQueryOrFragment) {
  EXPECT_FALSE(SplitUrl("https://a.b/x#y?z").has_query);
  EXPECT_EQ(SplitUrl("https://a.b/x#y?z").path, "/x");
  EXPECT_TRUE(SplitUrl("http://a.b/?").has_query);
  EXPECT_EQ(SplitUrl("http://[::1]:8080/p/q").host, "[::1]");
  EXPECT_EQ(SplitUrl("http://[::1]:8080/p/q").authority, "[::1]:8080");
  EXPECT_EQ(SplitUrl("http://u:p@v@a.b:1/").host, "a.b");
}

// A query right after the authority: an empty path at the '?', so the URL up
// to the end of its path (the trap guard's key of query variants) is the
// URL before the '?'.
TEST(SplitUrl, EmptyPathSitsAtTheQuery) {
  const std::string url = "http://a.b?q=1";
  const UrlParts parts = SplitUrl(url);
  EXPECT_EQ(parts.authority, "a.b");
  EXPECT_TRUE(parts.path.empty());
  EXPECT_TRUE(parts.has_query);
  EXPECT_EQ(url.substr(0, parts.path.data() + parts.path.size() - url.data()), "http://a.b");
}

TEST(SplitUrl, NothingWithoutSchemeSeparator) {
  const UrlParts parts = SplitUrl("mailto:x@y");
  EXPECT_TRUE(parts.authority.empty());
  EXPECT_TRUE(parts.host.empty());
  EXPECT_TRUE(parts.path.empty());
  EXPECT_FALSE(parts.has_query);
  EXPECT_TRUE(SplitUrl("http://a.b").path.empty());
  EXPECT_EQ(SplitUrl("http://a.b").host, "a.b");
  EXPECT_EQ(SplitUrl("ftp://f.b/x").host, "f.b");
}

TEST(SplitUrl, HostIsHostOfUrl) {
  for (const std::string_view url :
       {"http://a.b:81/x", "https://u:p@a.b/x", "http://[::1]:8080/", "http://a.b?q",
        "http://a.b#f", "mailto:x", "", "http://", "http://@/", "http://a.b:/", "x://y:z@w/v",
        "http://[::1/", "https://a.b/c@d:e"}) {
    EXPECT_EQ(SplitUrl(url).host, HostOfUrl(url)) << url;
  }
}

// The split as it was written before it was shared (the filter's HostOfUrl,
// the trap guard's own split), with the standard library's searches: SplitUrl
// must give the same views of every string, not only of URLs.
struct ReferenceParts {
  std::string_view authority;
  std::string_view host;
  std::string_view path;
  bool has_query = false;
  size_t path_end = std::string_view::npos;  // npos: nothing after the authority
};

ReferenceParts Reference(std::string_view url) {
  ReferenceParts parts;
  size_t start = url.find("://");
  if (start == std::string_view::npos) return parts;
  start += 3;
  const size_t end = url.find_first_of("/?#", start);
  parts.authority = url.substr(start, end == std::string_view::npos ? url.npos : end - start);
  parts.host = HostOfAuthority(parts.authority);
  if (end == std::string_view::npos) return parts;
  const size_t path_end = url.find_first_of("?#", end);
  parts.path_end = path_end == std::string_view::npos ? url.size() : path_end;
  parts.path = url.substr(end, parts.path_end - end);
  parts.has_query = path_end != std::string_view::npos && url[path_end] == '?';
  return parts;
}

TEST(SplitUrl, SameViewsAsTheSeparateSplitsOnRandomStrings) {
  std::mt19937 random(20261129);
  const std::string_view prefixes[] = {"http://", "https://", "ftp://", "", "x:", "http:/"};
  const std::string_view bytes = "ab1.:@[]/?#%";
  for (int i = 0; i < 200000; ++i) {
    std::string url(prefixes[random() % std::size(prefixes)]);
    const size_t length = random() % 25;
    for (size_t k = 0; k < length; ++k) url.push_back(bytes[random() % bytes.size()]);
    const UrlParts parts = SplitUrl(url);
    const ReferenceParts want = Reference(url);
    ASSERT_EQ(parts.authority, want.authority) << url;
    ASSERT_EQ(parts.host, want.host) << url;
    ASSERT_EQ(parts.path, want.path) << url;
    ASSERT_EQ(parts.has_query, want.has_query) << url;
    if (!want.authority.empty()) {
      ASSERT_EQ(parts.authority.data(), want.authority.data()) << url;
    }
    if (!want.host.empty()) {
      ASSERT_EQ(parts.host.data(), want.host.data()) << url;
    }
    if (want.path_end != std::string_view::npos) {
      ASSERT_EQ(static_cast<size_t>(parts.path.data() + parts.path.size() - url.data()),
                want.path_end)
          << url;
    }
  }
}

}  // namespace
}  // namespace crawler
