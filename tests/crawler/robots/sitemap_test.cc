// ParseSitemap: the sitemaps.org shapes (urlset, sitemapindex), gzip by magic
// bytes, the protocol's size bounds, and what is not a sitemap.
#include "crawler/sitemap.h"

#include <zlib.h>

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/gzip.h"

namespace crawler {
namespace {

using ::testing::ElementsAre;

// SitemapXml::kMaxLocBytes (a private header of the robots room).
constexpr size_t kLocCapBytes = size_t{1} << 20;

constexpr char kUrlset[] = R"(<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>http://a.test/one</loc><lastmod>2024-01-01</lastmod></url>
  <url>
    <loc>
      http://a.test/two?x=1&amp;y=2
    </loc>
  </url>
  <url><loc><![CDATA[http://a.test/three]]></loc></url>
</urlset>)";

TEST(SitemapTest, UrlsetListsPageLocsWithEntitiesAndCdata) {
  absl::StatusOr<Sitemap> map = ParseSitemap(kUrlset);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_THAT(map->urls,
              ElementsAre("http://a.test/one", "http://a.test/two?x=1&y=2", "http://a.test/three"));
  EXPECT_TRUE(map->sitemaps.empty());
  EXPECT_FALSE(map->gzipped);
  EXPECT_FALSE(map->truncated);
}

// One <priority> per URL, before or after its <loc>; 0.5 (the protocol's
// default) when absent, not a number, or out of [0, 1].
TEST(SitemapTest, PrioritiesComeOnePerUrlWithTheDefaultWhenMissingOrBad) {
  absl::StatusOr<Sitemap> map = ParseSitemap(R"(<?xml version="1.0"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>http://a.test/after</loc><priority>0.8</priority></url>
  <url><priority> 1.0 </priority><loc>http://a.test/before</loc></url>
  <url><loc>http://a.test/none</loc></url>
  <url><loc>http://a.test/word</loc><priority>high</priority></url>
  <url><loc>http://a.test/over</loc><priority>1.5</priority></url>
  <url><loc>http://a.test/zero</loc><priority>0.0</priority></url>
  <url><priority>0.9</priority></url>
</urlset>)");
  ASSERT_TRUE(map.ok()) << map.status();
  ASSERT_EQ(map->urls.size(), 6u);
  EXPECT_THAT(map->priorities, ElementsAre(0.8, 1.0, 0.5, 0.5, 0.5, 0.0));
}

TEST(SitemapTest, IndexListsChildSitemaps) {
  const std::string index = R"(<?xml version="1.0"?>
<!-- generated -->
<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sm:sitemap><sm:loc>http://a.test/s1.xml</sm:loc></sm:sitemap>
  <sm:sitemap><sm:loc>http://a.test/s2.xml.gz</sm:loc><sm:lastmod>x</sm:lastmod></sm:sitemap>
</sm:sitemapindex>)";
  absl::StatusOr<Sitemap> map = ParseSitemap(index);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_THAT(map->sitemaps, ElementsAre("http://a.test/s1.xml", "http://a.test/s2.xml.gz"));
  EXPECT_TRUE(map->urls.empty());
}

TEST(SitemapTest, GzipDetectedByMagicBytes) {
  absl::StatusOr<Sitemap> map = ParseSitemap(test_support::Gzip(kUrlset));
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_TRUE(map->gzipped);
  EXPECT_EQ(map->urls.size(), 3u);
}

TEST(SitemapTest, CorruptGzipIsAnError) {
  std::string bad = test_support::Gzip(kUrlset).substr(0, 10);
  bad += "garbage garbage garbage";
  EXPECT_FALSE(ParseSitemap(bad).ok());
}

TEST(SitemapTest, NotASitemapIsAnError) {
  EXPECT_FALSE(ParseSitemap("<html><body><loc>http://a.test/x</loc></body></html>").ok());
  EXPECT_FALSE(ParseSitemap("http://a.test/plain-text-sitemap\n").ok());
  EXPECT_FALSE(ParseSitemap("").ok());
  EXPECT_FALSE(ParseSitemap(std::string("\x00\x01\x02<<<>>>", 9)).ok());
}

TEST(SitemapTest, CutFileKeepsCompleteEntries) {
  const std::string cut = std::string(kUrlset).substr(0, std::string(kUrlset).find("three") - 5);
  absl::StatusOr<Sitemap> map = ParseSitemap(cut);
  ASSERT_TRUE(map.ok());
  EXPECT_THAT(map->urls, ElementsAre("http://a.test/one", "http://a.test/two?x=1&y=2"));
}

std::string BigUrlset(int n) {
  std::string xml = "<urlset>";
  for (int i = 0; i < n; ++i)
    absl::StrAppend(&xml, "<url><loc>http://a.test/p", i, "</loc></url>\n");
  return xml + "</urlset>";
}

TEST(SitemapTest, UrlCountIsBounded) {
  SitemapLimits limits;
  limits.max_urls = 100;
  absl::StatusOr<Sitemap> map = ParseSitemap(BigUrlset(1000), limits);
  ASSERT_TRUE(map.ok());
  EXPECT_EQ(map->urls.size(), 100u);
  EXPECT_TRUE(map->truncated);
  EXPECT_EQ(map->urls.back(), "http://a.test/p99");
}

TEST(SitemapTest, ProtocolDefaultIs50000Urls) {
  absl::StatusOr<Sitemap> map = ParseSitemap(BigUrlset(50'010));
  ASSERT_TRUE(map.ok());
  EXPECT_EQ(map->urls.size(), 50'000u);
  EXPECT_TRUE(map->truncated);
}

TEST(SitemapTest, GzipBombInflationIsBounded) {
  // 64 MiB of spaces compress to ~64 KiB; only max_decoded_bytes are inflated.
  std::string xml = "<urlset><url><loc>http://a.test/first</loc></url>";
  xml += std::string(64u << 20, ' ');
  xml += "<url><loc>http://a.test/beyond</loc></url></urlset>";
  SitemapLimits limits;
  limits.max_decoded_bytes = 1u << 20;
  absl::StatusOr<Sitemap> map = ParseSitemap(test_support::Gzip(xml), limits);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_TRUE(map->truncated);
  EXPECT_THAT(map->urls, ElementsAre("http://a.test/first"));
}

TEST(SitemapTest, PlainBodyBeyondByteCapIsCut) {
  SitemapLimits limits;
  limits.max_decoded_bytes = 200;
  absl::StatusOr<Sitemap> map = ParseSitemap(BigUrlset(100), limits);
  ASSERT_TRUE(map.ok());
  EXPECT_TRUE(map->truncated);
  EXPECT_LT(map->urls.size(), 10u);
  EXPECT_GT(map->urls.size(), 0u);
}

// The three misreadings of the old text search.
TEST(SitemapTest, LocInsideCommentIsNotAUrl) {
  absl::StatusOr<Sitemap> map = ParseSitemap(R"(<?xml version="1.0"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <!-- <url><loc>http://a.test/commented-out</loc></url> -->
  <url><loc>http://a.test/real</loc></url>
</urlset>)");
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_THAT(map->urls, ElementsAre("http://a.test/real"));
}

TEST(SitemapTest, LocTagWithWhitespaceIsRead) {
  absl::StatusOr<Sitemap> map = ParseSitemap(
      "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
      "<url ><loc >http://a.test/one</loc ></url>"
      "<url\n><loc\n\t>http://a.test/two</loc></url></urlset>");
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_THAT(map->urls, ElementsAre("http://a.test/one", "http://a.test/two"));
}

TEST(SitemapTest, ImageLocAndOtherNamespacesAreNotPages) {
  absl::StatusOr<Sitemap> map = ParseSitemap(R"(<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
        xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"
        xmlns:other="urn:example:other">
  <url>
    <loc>http://a.test/page</loc>
    <image:image><image:loc>http://a.test/photo.jpg</image:loc></image:image>
    <image:loc>http://a.test/stray-image.jpg</image:loc>
    <video:video><video:content_loc>http://a.test/v.mp4</video:content_loc></video:video>
    <other:loc>http://a.test/other-namespace</other:loc>
  </url>
  <other:url><other:loc>http://a.test/other-entry</other:loc></other:url>
  <loc>http://a.test/loc-outside-url</loc>
</urlset>)");
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_THAT(map->urls, ElementsAre("http://a.test/page"));
}

TEST(SitemapTest, CdataEntitiesAndCharacterReferencesAreDecoded) {
  absl::StatusOr<Sitemap> map = ParseSitemap(R"(<urlset>
  <url><loc><![CDATA[http://a.test/a?x=1&y=2]]></loc></url>
  <url><loc>http://a.test/b?x=1&amp;y=&lt;2&gt;&quot;&apos;</loc></url>
  <url><loc>http://a.test/caf&#233;/&#x2F;</loc></url>
  <url><loc>  <![CDATA[ http://a.test/d ]]>  </loc></url>
</urlset>)");
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_THAT(map->urls, ElementsAre("http://a.test/a?x=1&y=2", "http://a.test/b?x=1&y=<2>\"'",
                                     "http://a.test/caf\xC3\xA9//", "http://a.test/d"));
}

TEST(SitemapTest, NoNamespaceSitemapStillCounts) {
  // Many generators omit xmlns: the root's namespace (none) is the sitemap's.
  absl::StatusOr<Sitemap> map =
      ParseSitemap("<urlset><url><loc>http://a.test/x</loc></url></urlset>");
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_THAT(map->urls, ElementsAre("http://a.test/x"));
}

TEST(SitemapTest, EntityDeclarationsAreRefused) {
  // The "billion laughs" shape: refused before any expansion.
  const std::string bomb = R"(<?xml version="1.0"?>
<!DOCTYPE urlset [
  <!ENTITY a "aaaaaaaaaa">
  <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
  <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
]>
<urlset><url><loc>http://a.test/&c;</loc></url></urlset>)";
  absl::StatusOr<Sitemap> map = ParseSitemap(bomb);
  ASSERT_FALSE(map.ok());
  EXPECT_THAT(std::string(map.status().message()), ::testing::HasSubstr("entity declarations"));
}

TEST(SitemapTest, UndefinedEntityKeepsWhatCameBefore) {
  absl::StatusOr<Sitemap> map = ParseSitemap(
      "<urlset><url><loc>http://a.test/ok</loc></url>"
      "<url><loc>http://a.test/&nbsp;</loc></url>"
      "<url><loc>http://a.test/after</loc></url></urlset>");
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_THAT(map->urls, ElementsAre("http://a.test/ok"));
  EXPECT_TRUE(map->truncated);
}

TEST(SitemapTest, WrongRootIsNamedInTheError) {
  absl::StatusOr<Sitemap> map = ParseSitemap("<?xml version='1.0'?><rss><channel/></rss>");
  ASSERT_FALSE(map.ok());
  EXPECT_THAT(std::string(map.status().message()), ::testing::HasSubstr("'rss'"));
}

// A sitemap index as large sites publish it (gzip index, gzip children with
// lastmod, changefreq, priority, image and hreflang alternates), read the
// way the crawl reads it: the index, then each child it names.
TEST(SitemapTest, RealisticGzipIndexWithGzipChildren) {
  const std::string index = test_support::Gzip(R"(<?xml version="1.0" encoding="UTF-8"?>
<?xml-stylesheet type="text/xsl" href="//a.test/sitemap.xsl"?>
<!-- generator: some CMS 6.4 -->
<sitemapindex xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    xsi:schemaLocation="http://www.sitemaps.org/schemas/sitemap/0.9 http://www.sitemaps.org/schemas/sitemap/0.9/siteindex.xsd"
    xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap>
    <loc>https://a.test/sitemaps/posts-1.xml.gz</loc>
    <lastmod>2024-05-01T10:00:00+00:00</lastmod>
  </sitemap>
  <sitemap>
    <loc>https://a.test/sitemaps/pages.xml.gz</loc>
  </sitemap>
</sitemapindex>
)");
  std::map<std::string, std::string> children;
  children["https://a.test/sitemaps/posts-1.xml.gz"] =
      test_support::Gzip(R"(<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
        xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url>
    <loc>https://a.test/2024/05/hello-world/</loc>
    <lastmod>2024-05-01</lastmod>
    <changefreq>monthly</changefreq>
    <priority>0.8</priority>
    <xhtml:link rel="alternate" hreflang="de" href="https://a.test/de/2024/05/hallo/"/>
    <image:image>
      <image:loc>https://a.test/uploads/hello.jpg</image:loc>
      <image:title><![CDATA[Hello <world>]]></image:title>
    </image:image>
  </url>
  <url>
    <loc>https://a.test/2024/04/search?q=a&amp;page=2</loc>
  </url>
</urlset>)");
  children["https://a.test/sitemaps/pages.xml.gz"] = test_support::Gzip(
      "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
      "<url><loc>https://a.test/about/</loc></url></urlset>");

  absl::StatusOr<Sitemap> map = ParseSitemap(index);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_TRUE(map->gzipped);
  EXPECT_TRUE(map->urls.empty());
  ASSERT_THAT(map->sitemaps, ElementsAre("https://a.test/sitemaps/posts-1.xml.gz",
                                         "https://a.test/sitemaps/pages.xml.gz"));
  std::vector<std::string> pages;
  for (const std::string& child : map->sitemaps) {
    absl::StatusOr<Sitemap> sub = ParseSitemap(children.at(child));
    ASSERT_TRUE(sub.ok()) << child << ": " << sub.status();
    EXPECT_TRUE(sub->gzipped);
    EXPECT_FALSE(sub->truncated);
    EXPECT_TRUE(sub->sitemaps.empty());
    pages.insert(pages.end(), sub->urls.begin(), sub->urls.end());
  }
  EXPECT_THAT(pages,
              ElementsAre("https://a.test/2024/05/hello-world/",
                          "https://a.test/2024/04/search?q=a&page=2", "https://a.test/about/"));
}

TEST(SitemapTest, OverlongLocIsSkipped) {
  const std::string huge(kLocCapBytes + 1, 'x');
  absl::StatusOr<Sitemap> map =
      ParseSitemap("<urlset><url><loc>http://a.test/" + huge +
                   "</loc></url><url><loc>http://a.test/next</loc></url></urlset>");
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_THAT(map->urls, ElementsAre("http://a.test/next"));
}

}  // namespace
}  // namespace crawler
