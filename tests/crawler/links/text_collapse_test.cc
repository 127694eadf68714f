// Text collapsed before the parse (LinkOptions::collapse_text): what is
// collapsed and what is kept, and that the links found never change — on
// random markup soup built to hit the tree-construction rules that read text
// (tables, framesets, head/body, foreign content, references decoding to
// whitespace, bogus comments), and on the fuzzing corpus.
#include "../../../crawler/src/links/text_collapse.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "crawler/links.h"
#include "crawler/url.h"

namespace crawler {
namespace {

using links_internal::CollapseText;

TEST(CollapseTextTest, LongTextRunsBecomeOneCharacter) {
  EXPECT_EQ(CollapseText("<p>Some words about it.</p>"), "<p>x</p>");
  EXPECT_EQ(CollapseText("Leading words<a href=/a>the link text</a>trailing words"),
            "x<a href=/a>x</a>x");
  EXPECT_EQ(CollapseText("<p>short</p>"), "<p>short</p>");    // under 8 bytes: kept
  EXPECT_EQ(CollapseText("<p>a < b and c</p>"), "<p>x</p>");  // a '<' that is text
}

TEST(CollapseTextTest, WhitespaceNulsAndReferencesAloneAreKept) {
  EXPECT_EQ(CollapseText("<table>\n    \n  <tr>"), "<table>\n    \n  <tr>");
  EXPECT_EQ(CollapseText("<table>&#32;&Tab;&NewLine;<tr>"), "<table>&#32;&Tab;&NewLine;<tr>");
  EXPECT_EQ(CollapseText("<td>&nbsp; &amp; x words</td>"), "<td>x</td>");
  EXPECT_EQ(CollapseText("<p>a & b & c & d</p>"), "<p>x</p>");  // bare '&' is a character
}

TEST(CollapseTextTest, MarkupAndRawTextAreCopiedAsTheyAre) {
  const std::string kept =
      "<!-- a long comment <a href=/c> --><script>var a = '<a href=/s>';</script>"
      "<style>p { color: red }</style><title>a long title</title>"
      "<textarea>long text area</textarea><a title=\"x > y words\" href=/q>";
  EXPECT_EQ(CollapseText(kept), kept);
  // "</" before a non-letter opens a bogus comment to the next '>': the tag
  // inside it is not one, and the text around it stays as it was read.
  EXPECT_EQ(CollapseText("</ this is <a href=/no> then some words"), "</ this is <a href=/no>x");
}

// Found by the fuzzer: '=' before an attribute name starts a name, so the
// quote after it is no value; the tag ends at the last '>', and the text
// after the first '>' is still inside it.
TEST(CollapseTextTest, QuotesArePairedAsTheTokenizerPairsThem) {
  const std::string html = "<a =\" href=\">\"\xef\xbf\xbd>\xef\xbf\xbd\xef\xbf\xbd";
  EXPECT_EQ(CollapseText(html), html);                              // one tag, then 6 bytes of text
  EXPECT_EQ(CollapseText("<a =\"x>y long words\">"), "<a =\"x>x");  // the tag ends at x>
}

TEST(CollapseTextTest, NothingIsTouchedWhereTheWalkIsUnsure) {
  EXPECT_EQ(CollapseText("some long words<plaintext>more long words <a href=/p>"),
            "x<plaintext>more long words <a href=/p>");
  EXPECT_EQ(CollapseText("some long words<a href=\"/unclosed"), "x<a href=\"/unclosed");
  EXPECT_EQ(CollapseText("some long words<!-- never closed words"), "x<!-- never closed words");
}

struct CollapsedLinks {
  std::vector<std::string> links;
  size_t links_found = 0;
  size_t nofollow_skipped = 0;
  bool page_nofollow = false;
  bool operator==(const CollapsedLinks&) const = default;
};

CollapsedLinks ExtractCollapsed(const std::string& html, bool collapse) {
  static const Url page = *Url::Parse("http://site.test/dir/page.html");
  LinkOptions options;
  options.collapse_text = collapse;
  const PageLinks links = ExtractLinks(html, "text/html; charset=utf-8", page, options);
  CollapsedLinks found;
  for (const ExtractedLink& link : links.links) {
    found.links.push_back(link.url + " " + std::to_string(static_cast<int>(link.source)));
  }
  found.links_found = links.links_found;
  found.nofollow_skipped = links.nofollow_skipped;
  found.page_nofollow = links.page_nofollow;
  return found;
}

// Found by the fuzzer: Gumbo parses with scripting off, so a noscript's
// content is markup, and "</noscript>" inside a quoted value ends nothing.
TEST(CollapseTextTest, NoscriptContentIsMarkup) {
  const std::string html = "<noscript><a href=\"</noscript>ref\"sll>";
  EXPECT_EQ(CollapseText(html), html);
  EXPECT_EQ(ExtractCollapsed(html, true), ExtractCollapsed(html, false));
  EXPECT_EQ(CollapseText("<noscript><p>some long words</p></noscript>"),
            "<noscript><p>x</p></noscript>");
}

// Markup soup weighted toward what text changes in the tree builder.
std::string RandomCollapsingPage(std::mt19937_64& rng) {
  const std::vector<std::string> parts = {
      "<html>",
      "<head>",
      "</head>",
      "<body>",
      "</body>",
      "</html>",
      "<p>",
      "</p>",
      "<div>",
      "</div>",
      "<b>",
      "</b>",
      "<i>",
      "</i>",
      "Some plain words here ",
      "   \n\t  ",
      "&nbsp;&nbsp;&nbsp;",
      "&#32;&#32;&#9;&#10;",
      "&amp; more words",
      "x",
      "\n",
      "a < b < c ",
      "&#0;&#0;&#0;&#0;",
      "&notanentity; words",
      "<a href=/a{}>anchor words</a>",
      "<a href='/b{}' rel=nofollow>b words</a>",
      "<a href=/c{}>c",
      "<area href=/area{}>",
      "<link rel=next href=/next{}>",
      "<iframe src=/if{}></iframe>",
      "<meta http-equiv=refresh content=\"5; url=/r{}\">",
      "<table>",
      "</table>",
      "<tr>",
      "</tr>",
      "<td>",
      "</td>",
      "<caption>",
      "<colgroup>",
      "<col>",
      "<tbody>",
      "<th>",
      "<table><tr><td><a href=/td{}>t</a>",
      "<frameset>",
      "</frameset>",
      "<frame src=/frame{}>",
      "<noframes>nf words</noframes>",
      "<select>",
      "</select>",
      "<option>",
      "<optgroup>",
      "<svg>",
      "</svg>",
      "<math>",
      "</math>",
      "<mi>",
      "<foreignObject>",
      "<desc>",
      "<svg><![CDATA[ cdata words <a href=/cdata{}> ]]></svg>",
      "<template>",
      "</template>",
      "<title>a title</title>",
      "<textarea>ta words</textarea>",
      "<script>var s = '<a href=/s{}>';</script>",
      "<style>p { x: y }</style>",
      "<!-- comment <a href=/cm{}> -->",
      "</ bogus <a href=/bog{}> words",
      "</>",
      "<? pi <a href=/pi{}> ?>",
      "<!DOCTYPE html>",
      "<base href=/base{}/>",
      "<meta name=robots content=nofollow>",
      "<pre>",
      "</pre>",
      "<listing>",
      "<li>",
      "<ul>",
      "<a title='x > y' href=/q{}>q words</a>",
      "<a =\"x>y words\" href=/odd{}>o</a>",
      "<form>",
      "</form>",
      "<button>",
      "<nobr>",
      "<object data=/obj{}>",
      "<marquee>",
      "<body background=/bg{}>",
      "<image src=/img{}>",
      "<isindex>",
  };
  std::string html;
  const int count = 10 + static_cast<int>(rng() % 120);
  for (int i = 0; i < count; ++i) {
    std::string part = parts[rng() % parts.size()];
    if (rng() % 500 == 0) part = "<plaintext>";
    const size_t hole = part.find("{}");
    if (hole != std::string::npos) part.replace(hole, 2, std::to_string(i));
    html += part;
  }
  return html;
}

TEST(CollapseTextTest, RandomSoupGivesTheSameLinks) {
  std::mt19937_64 rng(20261122);
  for (int page = 0; page < 3000; ++page) {
    const std::string html = RandomCollapsingPage(rng);
    ASSERT_EQ(ExtractCollapsed(html, true), ExtractCollapsed(html, false))
        << "page " << page << ":\n"
        << html;
  }
}

TEST(CollapseTextTest, FuzzCorpusGivesTheSameLinks) {
  const std::filesystem::path corpus =
      std::filesystem::path(CRAWL_SOURCE_DIR) / "tests/fuzz/corpus/crawler_links";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    EXPECT_EQ(ExtractCollapsed(bytes.str(), true), ExtractCollapsed(bytes.str(), false))
        << entry.path();
    ++files;
  }
  EXPECT_GE(files, 20);  // the corpus is there
}

}  // namespace
}  // namespace crawler
