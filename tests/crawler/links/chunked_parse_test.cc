// Big pages are parsed in pieces (LinkOptions::parse_chunk_bytes): the cuts
// must never land where the HTML tokenizer or tree builder would read the
// rest differently, so the links found are those of the whole page.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "../../../crawler/src/links/chunk_boundaries.h"
#include "absl/strings/str_cat.h"
#include "crawler/links.h"
#include "crawler/url.h"

namespace crawler {
namespace {

using links_internal::SafeChunkEnds;

// Every cut (all ends but the last) of `html` at target size 1.
std::vector<size_t> Cuts(std::string_view html) {
  std::vector<size_t> ends = SafeChunkEnds(html, 1);
  EXPECT_FALSE(ends.empty());
  EXPECT_EQ(ends.back(), html.size());
  ends.pop_back();
  return ends;
}

// True if some cut falls strictly inside [begin, end) of the first `inner`
// occurrence in `html`.
bool CutInside(std::string_view html, std::string_view inner) {
  const size_t begin = html.find(inner);
  EXPECT_NE(begin, std::string_view::npos) << inner;
  for (size_t cut : Cuts(html)) {
    if (cut > begin && cut < begin + inner.size()) return true;
  }
  return false;
}

TEST(SafeChunkEndsTest, CutsOnlyBeforeTagsAndKeepsPiecesAtLeastTheTarget) {
  const std::string html = "<p>one</p><p>two</p> a < b <div>three</div>";
  for (size_t cut : Cuts(html)) {
    ASSERT_LT(cut + 1, html.size());
    EXPECT_EQ(html[cut], '<');
    EXPECT_TRUE(std::isalpha(html[cut + 1]) || html[cut + 1] == '/') << cut;
  }
  EXPECT_EQ(Cuts(html).size(), 5u);  // before </p>, <p>, </p>, <div>, </div>
  const std::vector<size_t> big = SafeChunkEnds(html, 15);
  size_t start = 0;
  for (size_t i = 0; i + 1 < big.size(); ++i) {
    EXPECT_GE(big[i] - start, 15u);
    start = big[i];
  }
  EXPECT_EQ(SafeChunkEnds("no markup at all", 1), std::vector<size_t>{16});
}

TEST(SafeChunkEndsTest, NeverCutsInsideRawTextCommentsOrQuotedAttributes) {
  const std::string html =
      "<p>x</p><script>var a = '<a href=/s>'; if (a </b) {}</script>"
      "<p>y</p><!-- <a href=/c> <p> --><p>z</p>"
      "<style>p > a { }</style><textarea><a href=/t></textarea>"
      "<title><b>t</b></title><a title='a > b <p>' href=/q>q</a>"
      "<xmp><a href=/x></xmp><noscript><a href=/n></noscript><p>end</p>";
  EXPECT_FALSE(CutInside(html, "<script>var a = '<a href=/s>'; if (a </b) {}</script>"));
  EXPECT_FALSE(CutInside(html, "<!-- <a href=/c> <p> -->"));
  EXPECT_FALSE(CutInside(html, "<style>p > a { }</style>"));
  EXPECT_FALSE(CutInside(html, "<textarea><a href=/t></textarea>"));
  EXPECT_FALSE(CutInside(html, "<title><b>t</b></title>"));
  EXPECT_FALSE(CutInside(html, "<a title='a > b <p>' href=/q>"));
  EXPECT_FALSE(CutInside(html, "<xmp><a href=/x></xmp>"));
  EXPECT_FALSE(CutInside(html, "<noscript><a href=/n></noscript>"));
  EXPECT_TRUE(CutInside(html, "<p>end</p>"));  // and it does cut elsewhere
}

TEST(SafeChunkEndsTest, NeverCutsInsideContextSensitiveElements) {
  const std::string html =
      "<p>a</p><template><p><a href=/t>t</a></p></template>"
      "<svg><g><a href=/v>v</a></g></svg><math><mi>x</mi></math>"
      "<select><option>o</option><option>p</option></select>"
      "<svg/><p>b</p><p>c</p>";
  EXPECT_FALSE(CutInside(html, "<template><p><a href=/t>t</a></p></template>"));
  EXPECT_FALSE(CutInside(html, "<svg><g><a href=/v>v</a></g></svg>"));
  EXPECT_FALSE(CutInside(html, "<math><mi>x</mi></math>"));
  EXPECT_FALSE(CutInside(html, "<select><option>o</option><option>p</option></select>"));
  EXPECT_TRUE(CutInside(html, "<p>b</p><p>c</p>"));  // a self-closed <svg/> opens nothing
}

TEST(SafeChunkEndsTest, StopsCuttingWhereTheRestIsUncertain) {
  EXPECT_FALSE(CutInside("<p>a</p><plaintext><p>b</p><p>c</p>", "<p>b</p><p>c</p>"));
  // A double-escaped script: its first "</script>" does not end it.
  const std::string escaped =
      "<p>a</p><script><!--<script></script><a href=/s></script>--></script><p>b</p><p>c</p>";
  EXPECT_FALSE(CutInside(escaped, "<a href=/s></script>--></script><p>b</p><p>c</p>"));
  EXPECT_FALSE(CutInside("<p>a</p><!-- never closed <p>b</p><p>c</p>", "<p>b</p><p>c</p>"));
  // Abrupt comments are whole: cutting resumes right after them.
  EXPECT_TRUE(CutInside("<p>a</p><!--><p>b</p><!---><p>c</p>", "<p>b</p>"));
}

// The distinct links of `html`, in order of first appearance, and the page's
// nofollow flag, parsed whole (chunk 0) or in pieces.
struct ChunkedLinks {
  std::vector<std::string> urls;
  bool page_nofollow = false;
  bool operator==(const ChunkedLinks&) const = default;
};

ChunkedLinks ExtractChunked(const std::string& html, size_t chunk_bytes) {
  LinkOptions options;
  options.parse_chunk_bytes = chunk_bytes;
  options.honor_nofollow = false;
  const absl::StatusOr<Url> page = Url::Parse("http://example.test/dir/page.html");
  const PageLinks links = ExtractLinks(html, "text/html; charset=utf-8", *page, options);
  ChunkedLinks found;
  found.page_nofollow = links.page_nofollow;
  std::set<std::string> seen;
  for (const ExtractedLink& link : links.links) {
    if (seen.insert(link.url).second) found.urls.push_back(link.url);
  }
  return found;
}

// Markup soup: every construct the scanner must respect, and ordinary pages.
std::string RandomChunkingPage(std::mt19937_64& rng) {
  const std::vector<std::string> parts = {
      "<p>",
      "</p>",
      "<div class=\"c\">",
      "</div>",
      "text & more ",
      "a < b ",
      "<br>",
      "<a href=\"/a{}\">a</a>",
      "<a href='/b{}' rel=nofollow>b</a>",
      "<a href=/c{}>c",
      "<area href=\"/area{}\">",
      "<link rel=next href=\"/next{}\">",
      "<link rel=stylesheet href=\"/css{}\">",
      "<iframe src=\"/if{}\"></iframe>",
      "<meta http-equiv=refresh content=\"5; url=/refresh{}\">",
      "<table><tr><td><a href=/td{}>t</a>",
      "</td></tr></table>",
      "<b><a href=/mis{}><p>misnested</b></a>",
      "<script>var s = \"<a href='/s{}'>\"; if (a</b) {}</script>",
      "<script><!--<script></script><a href=/esc{}></script>--></script>",
      "<!-- <a href=\"/comment{}\"> -->",
      "<!-->",
      "<!--->",
      "<!-- x --!>",
      "<!DOCTYPE html>",
      "<?php echo '<a href=/php{}>' ?>",
      "<style>a > b {{}}</style>",
      "<textarea><a href=/ta{}></textarea>",
      "<title>t<a href=/title{}></title>",
      "<xmp><a href=/xmp{}></xmp>",
      "<noscript><a href=/ns{}></noscript>",
      "<noframes><a href=/nf{}></noframes>",
      "<template><a href=/tpl{}>t</a></template>",
      "<svg><a href=/svg{}>s</a></svg>",
      "<svg/>",
      "<math><mi><a href=/math{}>m</a></mi></math>",
      "<svg><![CDATA[ </svg><a href=/cdata{}> ]]></svg>",
      "<select><option><a href=/sel{}>o</a></option></select>",
      "<a title=\"x > y\" href=\"/q{}\">q</a>",
      "<a title='<p>' href=/q2{}>q</a>",
      "<a \"odd>\" href=/odd{}>o</a>",
      "<base href=\"/base{}/\">",
      "<meta name=robots content=nofollow>",
      "</nosuchtag>",
      "<p/>",
      "<ul><li><a href=l{}>",
  };
  std::string html;
  const int count = 20 + static_cast<int>(rng() % 200);
  for (int i = 0; i < count; ++i) {
    std::string part = parts[rng() % parts.size()];
    // Rare constructs that swallow the rest (unclosed comment, plaintext).
    if (rng() % 400 == 0) part = "<!-- unclosed ";
    if (rng() % 400 == 0) part = "<plaintext>";
    const size_t hole = part.find("{}");
    if (hole != std::string::npos) part.replace(hole, 2, std::to_string(i));
    const size_t braces = part.find("{{}}");
    if (braces != std::string::npos) part.replace(braces, 4, "{}");
    html += part;
  }
  return html;
}

TEST(ChunkedParseTest, RandomMarkupSoupGivesTheLinksOfTheWholePage) {
  std::mt19937_64 rng(20261122);
  for (int page = 0; page < 400; ++page) {
    const std::string html = RandomChunkingPage(rng);
    const ChunkedLinks whole = ExtractChunked(html, 0);
    for (size_t chunk : {1, 7, 64}) {
      ASSERT_EQ(ExtractChunked(html, chunk), whole)
          << "chunk " << chunk << " page " << page << ":\n"
          << html;
    }
  }
}

TEST(ChunkedParseTest, BigPageKeepsEveryLinkInOrder) {
  std::string html = "<html><head><base href=\"/docs/\"></head><body>";
  int expected = 0;
  while (html.size() < (size_t{3} << 20)) {
    absl::StrAppend(&html, "<p>Some words about item ", expected, ": <a href=\"item", expected,
                    ".html\">item ", expected, "</a>.</p>\n");
    ++expected;
  }
  html += "</body></html>";
  LinkOptions options;  // default pieces of 256 KiB
  const absl::StatusOr<Url> page = Url::Parse("http://example.test/index.html");
  const PageLinks links = ExtractLinks(html, "text/html", *page, options);
  ASSERT_EQ(links.links.size(), static_cast<size_t>(expected));
  EXPECT_EQ(links.links_found, static_cast<size_t>(expected));
  EXPECT_FALSE(links.truncated);
  for (int i = 0; i < expected; ++i) {
    ASSERT_EQ(links.links[i].url, absl::StrCat("http://example.test/docs/item", i, ".html"));
  }
}

TEST(ChunkedParseTest, MaxLinksCountsAcrossPieces) {
  std::string html;
  for (int i = 0; i < 1000; ++i) absl::StrAppend(&html, "<p><a href=\"/l", i, "\">x</a></p>");
  LinkOptions options;
  options.parse_chunk_bytes = 100;
  options.max_links = 250;
  const absl::StatusOr<Url> page = Url::Parse("http://example.test/");
  const PageLinks links = ExtractLinks(html, "text/html", *page, options);
  EXPECT_EQ(links.links.size(), 250u);
  EXPECT_EQ(links.links_found, 1000u);
  EXPECT_TRUE(links.truncated);
  EXPECT_EQ(links.links.back().url, "http://example.test/l249");
}

}  // namespace
}  // namespace crawler
