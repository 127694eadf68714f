// ParseSitemap: the sitemaps.org shapes (urlset, sitemapindex), gzip by magic
// bytes, the protocol's size bounds, and what is not a sitemap.
#include "crawler/sitemap.h"

#include <zlib.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

using ::testing::ElementsAre;

std::string Gzip(const std::string& text) {
  z_stream stream{};
  deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, text.size()) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

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
  absl::StatusOr<Sitemap> map = ParseSitemap(Gzip(kUrlset));
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_TRUE(map->gzipped);
  EXPECT_EQ(map->urls.size(), 3u);
}

TEST(SitemapTest, CorruptGzipIsAnError) {
  std::string bad = Gzip(kUrlset).substr(0, 10);
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
  absl::StatusOr<Sitemap> map = ParseSitemap(Gzip(xml), limits);
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

}  // namespace
}  // namespace crawler
