// The link scanner (LinkParser::kScanner) against Gumbo (kGumbo): the same
// ExtractLinks result on every page, whether the scanner decided the page
// itself or handed it to Gumbo; which constructs it decides alone; and the
// character-reference decoding it shares with nobody.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../../../crawler/src/links/char_refs.h"
#include "crawler/links.h"
#include "crawler/url.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

const Url& ScannerPageUrl() {
  static const Url* const url = new Url(*Url::Parse("https://site.example/dir/page.html"));
  return *url;
}

PageLinks ScannerExtract(std::string_view html, LinkParser parser) {
  LinkOptions options;
  options.parser = parser;
  return ExtractLinks(html, "text/html", ScannerPageUrl(), options);
}

std::vector<std::string> ScannerUrls(const PageLinks& page) {
  std::vector<std::string> urls;
  for (const ExtractedLink& link : page.links) {
    urls.push_back(std::string(LinkSourceName(link.source)) + " " + link.url);
  }
  return urls;
}

// Both parsers agree on everything ExtractLinks reports.
void ExpectSame(std::string_view html, const std::string& label) {
  const PageLinks gumbo = ScannerExtract(html, LinkParser::kGumbo);
  const PageLinks scan = ScannerExtract(html, LinkParser::kScanner);
  EXPECT_EQ(ScannerUrls(scan), ScannerUrls(gumbo)) << label;
  EXPECT_EQ(scan.links_found, gumbo.links_found) << label;
  EXPECT_EQ(scan.rejected, gumbo.rejected) << label;
  EXPECT_EQ(scan.nofollow_skipped, gumbo.nofollow_skipped) << label;
  EXPECT_EQ(scan.page_nofollow, gumbo.page_nofollow) << label;
  EXPECT_EQ(scan.truncated_reason, gumbo.truncated_reason) << label;
}

// Pages the scanner decides alone; each pins one tokenizer or tree rule.
const std::vector<std::string>& DecidedPages() {
  static const auto* const pages = new std::vector<std::string>{
      "<a href=/a>1</a><a href='/b'>2</a><a href=\"/c\">3</a>",
      "<a HREF=/first href=/second>dup</a>",
      "<area href=/area><iframe src=/frame></iframe><link rel=next href=/next>",
      "<link rel='alternate stylesheet' href=/css><link rel=canonical href=/canon>",
      "<a href=/x rel=nofollow>n</a><a href=/y rel='external NoFollow'>m</a><a href=/z>z</a>",
      "<meta name=robots content='noindex, nofollow'><a href=/a>a</a>",
      "<meta http-equiv=Refresh content=\"5; URL='/later'\"><a href=/a>a</a>",
      "<a href=/before>b</a><base href=https://other.example/sub/><a href=rel>r</a>",
      "<base target=_top><base href=/second/><a href=x>x</a>",
      "<template><a href=/inert>i</a><base href=/no/></template><a href=/live>l</a>",
      "<template><template><a href=/i></template><a href=/j></template><a href=/k>",
      "<template><svg><style><a href=/t></style><![CDATA[</template>]]></svg></template><a "
      "href=/u>",
      "<head><noscript><link rel=canonical href=/ns></noscript></head><a href=/b>",
      "<noscript><a href=/in-noscript>x</a></noscript>",
      "<head><noscript><a href=/breaks-out>x</a></noscript><a href=/after>",
      "<a href='&amp;&lt;&gt;&quot;&#65;&#x42;&#x20AC;&#128;&#0;&#xD800;&#1114112;'>r</a>",
      "<a href='/q?a=1&copy=2&amp=3&notit;&notin;&ampx&amp;x'>hist</a>",
      "<a href=/q?x=&amp>unquoted</a><a href=\"&\">amp</a><a href='&#;&#x;&#a'>",
      "<a href='/a\r\nb\rc\td'>cr</a><a href='/\x01\x7f'>ctl</a>",
      "<a href='/caf\xc3\xa9/\xe2\x82\xac'>utf8</a><a href='/\xc2\x80\xef\xb7\x90'>c1</a>",
      "<a href=/x\xef\xbf\xbe>nonchar</a>",
      "<!-- <a href=/commented> --><a href=/real>r</a><!--> <a href=/after-short>",
      "<!---> <a href=/a>a</a> --!> <a href=/b>",
      "<!DOCTYPE html PUBLIC \"x>y\"><a href=/after-doctype>",
      "<? <a href=/bogus> ?><a href=/ok>o</a></ <a href=/bogus2>><a href=/ok2>p</a></><a "
      "href=/ok3>",
      "<title><a href=/t></title><textarea><a href=/ta></textarea><a href=/ok>",
      "<style><a href=/s></style><xmp><a href=/x></xmp><noembed><a href=/n></noembed><a href=/y>",
      "<iframe src=/f><a href=/inside></iframe><noframes><a href=/nf></noframes><a href=/z>",
      "<script>var a='<a href=/s>';</script><a href=/after-script>",
      "<script><!-- <script> </script> <a href=/double> </script> --></script><a href=/z>",
      "<script><!-- </script><a href=/escaped-end>",
      "<script>a</scriptx><a href=/no></script><a href=/yes>",
      "<title>x</title foo='>'><a href=/after-end-attrs>",
      "<p><a href=/p1>x</a></p><p>t<b>b<i>i</i></b><a href=/p2>y</a>",
      "<ul><li><a href=/l1>1</a><li><a href=/l2>2</a></ul><dl><dt>t<dd><a href=/d>d</a></dl>",
      "<div><p>para<div><a href=/in-div>x</a></div></div>",
      "<table><tr><td><a href=/c1>1</a><td><a href=/c2>2</table><a href=/after>",
      "<table><caption><a href=/cap>c</a></caption><colgroup><col></colgroup>"
      "<thead><tr><th><a href=/h>h</a></thead><tbody><tr><td><b><a href=/b>b</a></td></tr>"
      "</tbody></table>",
      "<table>\n <tr>\n  <td><table><tr><td><a href=/nested></table></td>\n </tr>\n</table>",
      "<h1><a href=/h1>h</a></h1><h2>x<h3><a href=/h3>y</a></h3>",
      "<form><a href=/f>f</a></form><form><a href=/g>g</a></form>",
      "<svg viewBox='0 0 1 1'><path d=M0/><a xlink:href=/xl href=/h rel=nofollow>s</a>"
      "<a href=/h2 xlink:href=/xl2>t</a><style><a href=/svg-style></a></style>"
      "<![CDATA[<a href=/cdata>]]></svg><svg/><a href=/html>h</a>",
      "<svg><title>t</title><a href=/svg-a>s</a><g></svg>",  // <title> in SVG holding text
      "<plaintext><a href=/never>",
      "<a href=/x\x00y>nul</a><a\x00 href=/z>z</a>",
      // Found by crawler_links_diff: Gumbo drops a NUL that starts a name.
      std::string("<meta http-equiv=refresh \0content='5; url=/r'><a \0href=/n>n</a>", 63),
      "<a href=/eof",
      "<a href='/unterminated>",
      "<frameset-like><a href=/custom>c</a></frameset-like><my-el><a href=/m>m</a></my-el>",
      "<button><a href=/btn>b</a></button><object><a href=/obj></object>",
      "<select-ish></select-ish><option><a href=/o>o</a>",
      "<a href='/\xff\xfe'>windows-1252</a>",
      "<a href=/1 id=x ID=y href=/2>dup</a><link rel=next Rel=prev href=/n>",
  };
  return *pages;
}

// Pages where the tree reorders, clones or drops links, or where the
// scanner's model stops: it must hand them to Gumbo.
const std::vector<std::string>& FallbackPages() {
  static const auto* const pages = new std::vector<std::string>{
      "<a href=/outer><div><a href=/inner>x</a></div>",        // adoption agency clone
      "<p><a href=/x>text</p>more",                            // reconstructed <a>
      "<table><tr><td>1</td></tr><a href=/fostered></table>",  // foster parenting
      "<table>text<a href=/f></table>",                        // foster-parented text
      "<select><a href=/ignored></select><a href=/ok>",        // dropped in select
      "<frameset><frame src=/f1><frame src=/f2></frameset>",   // frames
      "<svg><foreignObject><a href=/html-in-svg>h</a></foreignObject></svg>",
      "<svg><p><a href=/breakout>b</a></svg>",
      "<svg><a href=/x>x</a ></svg>",  // "</a >" is no "a" to Gumbo
      "<math><a href=/math-a></a></math>",
      "<p><table><a href=/quirks></table>",       // depends on quirks mode
      "<b><i>x</b>y</i><a href=/after-misnest>",  // misnested formatting
      "<a href='&#99999999999;'>overflow</a>",    // Gumbo's int overflows
      "text before body &amp; more<a href=/t>",   // "&#32;" would keep the head open
      // Found by crawler_links_diff: a valueless duplicate name stays in
      // Gumbo's buffer and prefixes the next name ("xhref").
      "<a x x href=/lost>x</a>",
      // Found by crawler_links_diff: <frameset> in body was taken for <svg>.
      "<p>x<frameset><frdy><a href=/f>a</a>",
      "<body><frameset><a href=/gone>g</a><frame src=/fr>",
      "<hts://ba$se.exam\nhttps://etex</hfraref=\"&ea/iframe><fraame.html\"></iframe>"
      "<frameset><frdy><a href=\xff\xff\xff\"rell>",
  };
  return *pages;
}

TEST(LinkScannerTest, DecidesPlainPagesAloneWithGumbosLinks) {
  for (const std::string& page : DecidedPages()) {
    ExpectSame(page, page);
    const PageLinks scan = ScannerExtract(page, LinkParser::kScanner);
    EXPECT_FALSE(scan.parser_fallback) << page << ": " << scan.fallback_reason;
  }
}

TEST(LinkScannerTest, HandsTreeDependentPagesToGumbo) {
  for (const std::string& page : FallbackPages()) {
    ExpectSame(page, page);
    const PageLinks scan = ScannerExtract(page, LinkParser::kScanner);
    EXPECT_TRUE(scan.parser_fallback) << page;
    EXPECT_FALSE(scan.fallback_reason.empty()) << page;
  }
}

TEST(LinkScannerTest, ReadsTheDocumentOrderAndBase) {
  const PageLinks page = ScannerExtract(
      "<a href=one>1</a><base href=https://b.example/x/><link rel=prev href=/two>"
      "<meta http-equiv=refresh content='0;url=three'>",
      LinkParser::kScanner);
  EXPECT_FALSE(page.parser_fallback);
  EXPECT_THAT(ScannerUrls(page),
              testing::ElementsAre("a https://b.example/x/one", "link https://b.example/two",
                                   "meta-refresh https://b.example/x/three"));
}

TEST(LinkScannerTest, SameAsGumboOnTheFuzzCorpus) {
  const std::filesystem::path dir =
      std::filesystem::path(CRAWL_SOURCE_DIR) / "tests/fuzz/corpus/crawler_links";
  size_t pages = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ExpectSame(body, entry.path().string());
    ++pages;
  }
  EXPECT_GE(pages, 30u);
}

// Every cut of a page that mixes most constructs: the scanner must agree
// with Gumbo on each truncation too (tags, values, comments cut anywhere).
TEST(LinkScannerTest, SameAsGumboOnEveryPrefix) {
  std::string page;
  for (const std::string& p : DecidedPages()) page += p;
  for (size_t cut = 0; cut <= page.size(); cut += 7) ExpectSame(page.substr(0, cut), "prefix");
}

using links_internal::AppendAttributeCharRef;
using links_internal::CharRefResult;

std::string Decode(std::string_view text, char allowed, size_t* consumed) {
  std::string out;
  size_t pos = 0;
  AppendAttributeCharRef(text, &pos, allowed, &out);
  *consumed = pos;
  return out;
}

TEST(CharRefsTest, DecodesNamedReferencesLongestFirst) {
  size_t n = 0;
  EXPECT_EQ(Decode("&amp;x", '"', &n), "&");
  EXPECT_EQ(n, 5u);
  EXPECT_EQ(Decode("&CounterClockwiseContourIntegral;", '"', &n), "\xE2\x88\xB3");
  EXPECT_EQ(Decode("&NotNestedGreaterGreater;", '"', &n),
            "\xE2\xAA\xA2\xCC\xB8");                 // two code points
  EXPECT_EQ(Decode("&copy ", '"', &n), "\xC2\xA9");  // legacy name without ';'
  EXPECT_EQ(n, 5u);
  EXPECT_EQ(Decode("&copyx", '"', &n), "&");  // historical rule in attributes
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(Decode("&copy=", '"', &n), "&");
  EXPECT_EQ(Decode("&nosuch;", '"', &n), "&");
  EXPECT_EQ(Decode("&\"", '"', &n), "&");
}

TEST(CharRefsTest, DecodesNumericReferencesAsGumbo) {
  size_t n = 0;
  EXPECT_EQ(Decode("&#65;", '"', &n), "A");
  EXPECT_EQ(Decode("&#x41", '"', &n), "A");
  EXPECT_EQ(Decode("&#150;", '"', &n), "\xE2\x80\x93");  // windows-1252 en dash
  EXPECT_EQ(Decode("&#0;", '"', &n), "\xEF\xBF\xBD");
  EXPECT_EQ(Decode("&#xDFFF;", '"', &n), "\xEF\xBF\xBD");
  EXPECT_EQ(Decode("&#x110000;", '"', &n), "\xEF\xBF\xBD");
  EXPECT_EQ(Decode("&#13;", '"', &n), "\r");
  EXPECT_EQ(Decode("&#x;", '"', &n), "&");
  std::string out;
  size_t pos = 0;
  EXPECT_EQ(AppendAttributeCharRef("&#4294967296;", &pos, '"', &out), CharRefResult::kUnsure);
}

}  // namespace
}  // namespace crawler
