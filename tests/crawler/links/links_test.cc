// ExtractLinks and PrintLinks (crawler/links.h): which elements yield links,
// how they resolve, and nofollow. "Spec..." cases follow the HTML standard;
// the others are the crawler's documented choices.
#include "crawler/links.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace crawler {
namespace {

using ::testing::ElementsAre;

Url PageUrl(std::string_view href = "http://example.com/dir/page.html") {
  absl::StatusOr<Url> url = Url::Parse(href, nullptr);
  EXPECT_TRUE(url.ok()) << url.status();
  return *url;
}

std::vector<std::string> Urls(const PageLinks& page) {
  std::vector<std::string> urls;
  for (const ExtractedLink& link : page.links) urls.push_back(link.url);
  return urls;
}

std::vector<LinkSource> Sources(const PageLinks& page) {
  std::vector<LinkSource> sources;
  for (const ExtractedLink& link : page.links) sources.push_back(link.source);
  return sources;
}

PageLinks Extract(std::string_view html, const LinkOptions& options = {}) {
  return ExtractLinks(html, "text/html", PageUrl(), options);
}

TEST(ExtractLinksTest, EveryElementKindInDocumentOrder) {
  const PageLinks page = Extract(R"(<html><head>
      <meta http-equiv="refresh" content="5; url=/refreshed">
      <link rel=canonical href="/canonical"></head><body>
      <a href="a.html">a</a>
      <map><area href="/area" shape=rect coords="0,0,1,1"></map>
      <iframe src="//other.example/frame"></iframe>
      </body></html>)");
  EXPECT_THAT(Urls(page),
              ElementsAre("http://example.com/refreshed", "http://example.com/canonical",
                          "http://example.com/dir/a.html", "http://example.com/area",
                          "http://other.example/frame"));
  EXPECT_THAT(Sources(page),
              ElementsAre(LinkSource::kMetaRefresh, LinkSource::kLink, LinkSource::kAnchor,
                          LinkSource::kArea, LinkSource::kIframe));
  EXPECT_EQ(page.links_found, 5u);
  EXPECT_EQ(page.rejected, 0u);
  EXPECT_FALSE(page.truncated);
}

TEST(ExtractLinksTest, FramesetFrames) {
  const PageLinks page = Extract(
      "<html><frameset cols='50%,50%'><frame src=left.html><frame src=right.html></frameset>");
  EXPECT_THAT(Urls(page),
              ElementsAre("http://example.com/dir/left.html", "http://example.com/dir/right.html"));
  EXPECT_THAT(Sources(page), ElementsAre(LinkSource::kFrame, LinkSource::kFrame));
}

TEST(ExtractLinksTest, LinkRelationsThatNameAnotherPageOnly) {
  const PageLinks page = Extract(R"(<head>
      <link rel=stylesheet href=s.css>
      <link rel="alternate stylesheet" href=alt.css>
      <link rel=icon href=i.png>
      <link rel=preload href=p.js>
      <link rel="Next" href=n>
      <link rel="prev" href=p>
      <link rel="alternate" hreflang=de href=/de/>
      <link rel=canonical href=c>)");
  EXPECT_THAT(Urls(page), ElementsAre("http://example.com/dir/n", "http://example.com/dir/p",
                                      "http://example.com/de/", "http://example.com/dir/c"));
}

// Per source, what is followed (docs/crawler-options.md): a
// feed's URL is (rel=alternate), srcset candidates and images are not.
TEST(ExtractLinksTest, FeedUrlFollowedSrcsetAndImagesNot) {
  const PageLinks page = Extract(
      "<link rel=alternate type=application/rss+xml href=/feed.xml>"
      "<link rel=alternate type=application/atom+xml href=/atom.xml>"
      "<img src=/i/a.png srcset='/i/a-2x.png 2x, /i/a-3x.png 3x'>"
      "<picture><source srcset=/i/b.webp><img src=/i/b.png></picture>"
      "<a href=/next.html>next</a>");
  EXPECT_THAT(Urls(page), ElementsAre("http://example.com/feed.xml", "http://example.com/atom.xml",
                                      "http://example.com/next.html"));
}

TEST(ExtractLinksTest, SpecEntitiesInAttributesAreDecoded) {
  const PageLinks page = Extract("<a href='/q?a=1&amp;b=2&lt'>x</a>");
  EXPECT_THAT(Urls(page), ElementsAre("http://example.com/q?a=1&b=2%3C"));
}

TEST(ExtractLinksTest, NonHttpAndBrokenLinksAreRejectedAndCounted) {
  const PageLinks page = Extract(R"html(
      <a href="mailto:x@example.com">m</a><a href="javascript:void(0)">j</a>
      <a href="http://[bad">b</a><a href="ftp://example.com/f">f</a><a href="/ok#frag">ok</a>
      <a name=anchor-without-href>n</a>)html");
  EXPECT_THAT(Urls(page), ElementsAre("http://example.com/ok"));
  EXPECT_EQ(page.links_found, 5u);
  EXPECT_EQ(page.rejected, 4u);
}

TEST(ExtractLinksTest, TooLongUrlsAreRejected) {
  LinkOptions options;
  options.normalize.max_length = 40;
  const PageLinks page =
      Extract("<a href=/short>s</a><a href=/" + std::string(100, 'x') + ">l</a>", options);
  EXPECT_THAT(Urls(page), ElementsAre("http://example.com/short"));
  EXPECT_EQ(page.rejected, 1u);
}

TEST(ExtractLinksTest, DuplicatesAreKept) {
  const PageLinks page = Extract("<a href=x>1</a><a href=./x>2</a><a href=x#y>3</a>");
  EXPECT_EQ(page.links.size(), 3u);
  EXPECT_EQ(page.links[0].url, page.links[2].url);
}

TEST(ExtractLinksTest, SpecBaseHrefAppliesToLinksBeforeItToo) {
  const PageLinks page =
      Extract("<a href=before>b</a><base href='http://base.example/sub/'><a href=after>a</a>");
  EXPECT_THAT(Urls(page),
              ElementsAre("http://base.example/sub/before", "http://base.example/sub/after"));
}

TEST(ExtractLinksTest, SpecRelativeBaseResolvesAgainstThePage) {
  const PageLinks page = Extract("<base href='../other/'><a href=x.html>x</a>");
  EXPECT_THAT(Urls(page), ElementsAre("http://example.com/other/x.html"));
}

TEST(ExtractLinksTest, SpecFirstBaseWithHrefWins) {
  const PageLinks page =
      Extract("<base target=_top><base href=/one/><base href=/two/><a href=x>x</a>");
  EXPECT_THAT(Urls(page), ElementsAre("http://example.com/one/x"));
}

TEST(ExtractLinksTest, UnusableBaseIsIgnored) {
  const PageLinks page = Extract("<base href='http://[broken/'><a href=x>x</a>");
  EXPECT_THAT(Urls(page), ElementsAre("http://example.com/dir/x"));
}

TEST(ExtractLinksTest, RelNofollowSkipsThatLinkOnly) {
  const PageLinks page =
      Extract("<a href=/keep>k</a><a rel='external NoFollow' href=/skip>s</a><a href=/too>t</a>");
  EXPECT_THAT(Urls(page), ElementsAre("http://example.com/keep", "http://example.com/too"));
  EXPECT_EQ(page.nofollow_skipped, 1u);
  EXPECT_EQ(page.links_found, 3u);
  EXPECT_FALSE(page.page_nofollow);
}

TEST(ExtractLinksTest, MetaRobotsNofollowSkipsTheWholePage) {
  for (const char* content : {"nofollow", "noindex, NOFOLLOW", "none", "noarchive nofollow"}) {
    const PageLinks page = Extract(std::string("<meta name=Robots content='") + content +
                                   "'><a href=/a>a</a><a href=/b>b</a>");
    EXPECT_TRUE(page.page_nofollow) << content;
    EXPECT_TRUE(page.links.empty()) << content;
    EXPECT_EQ(page.nofollow_skipped, 2u) << content;
  }
  const PageLinks follow = Extract("<meta name=robots content='noindex, follow'><a href=/a>a</a>");
  EXPECT_FALSE(follow.page_nofollow);
  EXPECT_EQ(follow.links.size(), 1u);
}

TEST(ExtractLinksTest, IgnoreNofollowFollowsEverything) {
  LinkOptions options;
  options.honor_nofollow = false;
  const PageLinks page = Extract(
      "<meta name=robots content=nofollow><a rel=nofollow href=/a>a</a><a href=/b>b</a>", options);
  EXPECT_THAT(Urls(page), ElementsAre("http://example.com/a", "http://example.com/b"));
  EXPECT_TRUE(page.page_nofollow);  // still reported
  EXPECT_EQ(page.nofollow_skipped, 0u);
}

TEST(ExtractLinksTest, SpecMetaRefreshForms) {
  struct Case {
    const char* content;
    const char* expected;  // empty: no link
  };
  const Case cases[] = {
      {"5; url=/five", "http://example.com/five"},
      {"0;URL='/quoted single'", "http://example.com/quoted%20single"},
      {"0; url=&quot;/dq&quot; trailing", "http://example.com/dq"},
      {"3,/comma", "http://example.com/comma"},
      {"1 next.html", "http://example.com/dir/next.html"},
      {"0.5; URL = /spaced", "http://example.com/spaced"},
      {"0; urlx", "http://example.com/dir/urlx"},
      {"5", ""},
      {"5;", ""},
      {"soon; url=/x", ""},
  };
  for (const Case& c : cases) {
    const PageLinks page =
        Extract(std::string("<meta http-equiv=REFRESH content=\"") + c.content + "\">");
    if (*c.expected == '\0') {
      EXPECT_TRUE(page.links.empty()) << c.content;
    } else {
      EXPECT_THAT(Urls(page), ElementsAre(c.expected)) << c.content;
    }
  }
}

TEST(ExtractLinksTest, TemplateContentsAreInert) {
  const PageLinks page = Extract("<template><a href=/inert>x</a></template><a href=/live>y</a>");
  EXPECT_THAT(Urls(page), ElementsAre("http://example.com/live"));
}

TEST(ExtractLinksTest, SvgAnchorsCount) {
  const PageLinks page = Extract(
      "<svg><a href='/svg2'><text>a</text></a><a xlink:href='/xlink'><text>b</text></a></svg>");
  EXPECT_THAT(Urls(page), ElementsAre("http://example.com/svg2", "http://example.com/xlink"));
}

TEST(ExtractLinksTest, MalformedHtmlStillYieldsLinks) {
  const PageLinks page = Extract("<table><a href=/in-table>x<td><a href='/unclosed");
  EXPECT_THAT(Urls(page), ElementsAre("http://example.com/in-table"));
}

TEST(ExtractLinksTest, BodyWithoutTagsHasNoLinks) {
  const PageLinks page = Extract("just text, http://example.com/not-a-link");
  EXPECT_TRUE(page.links.empty());
  EXPECT_EQ(page.links_found, 0u);
}

TEST(ExtractLinksTest, NonAsciiHrefInWindows1252IsPercentEncodedAsUtf8) {
  // The page is windows-1252 (declared in a meta): 0xE9 is e-acute, which the
  // URL parser percent-encodes as its UTF-8 bytes in the path.
  const PageLinks page =
      ExtractLinks("<meta charset=windows-1252><a href='/caf\xE9'>x</a>", "", PageUrl());
  EXPECT_EQ(page.charset, "windows-1252");
  EXPECT_THAT(Urls(page), ElementsAre("http://example.com/caf%C3%A9"));
}

TEST(ExtractLinksTest, ContentTypeCharsetIsUsed) {
  // "ж" in KOI8-R is 0xD6; in UTF-8 D0 B6.
  const PageLinks page =
      ExtractLinks("<a href='/\xD6'>x</a>", "text/html; charset=KOI8-R", PageUrl());
  EXPECT_THAT(Urls(page), ElementsAre("http://example.com/%D0%B6"));
}

TEST(ExtractLinksTest, MaxLinksCapsTheOutputAndSaysSo) {
  LinkOptions options;
  options.max_links = 3;
  std::string html;
  for (int i = 0; i < 10; ++i) html += "<a href=/" + std::to_string(i) + ">x</a>";
  const PageLinks page = Extract(html, options);
  EXPECT_THAT(Urls(page),
              ElementsAre("http://example.com/0", "http://example.com/1", "http://example.com/2"));
  EXPECT_EQ(page.links_found, 10u);
  EXPECT_TRUE(page.truncated);
}

TEST(ExtractLinksTest, MaxHtmlBytesParsesOnlyThePrefix) {
  LinkOptions options;
  options.max_html_bytes = 20;
  const PageLinks page = Extract("<a href=/first>x</a><a href=/second>y</a>", options);
  EXPECT_THAT(Urls(page), ElementsAre("http://example.com/first"));
  EXPECT_TRUE(page.truncated);
}

TEST(LinkSourceNameTest, NamesEveryKind) {
  EXPECT_EQ(LinkSourceName(LinkSource::kAnchor), "a");
  EXPECT_EQ(LinkSourceName(LinkSource::kArea), "area");
  EXPECT_EQ(LinkSourceName(LinkSource::kLink), "link");
  EXPECT_EQ(LinkSourceName(LinkSource::kIframe), "iframe");
  EXPECT_EQ(LinkSourceName(LinkSource::kFrame), "frame");
  EXPECT_EQ(LinkSourceName(LinkSource::kMetaRefresh), "meta-refresh");
}

TEST(PrintLinksTest, OneResolvedUrlPerLineInDocumentOrder) {
  std::ostringstream out;
  ASSERT_TRUE(PrintLinks("<a href=b>b</a><a href='HTTP://X.example/a/../c'>c</a><a href=b>b</a>",
                         "https://example.org/dir/", out)
                  .ok());
  EXPECT_EQ(out.str(),
            "https://example.org/dir/b\nhttp://x.example/c\nhttps://example.org/dir/b\n");
}

TEST(PrintLinksTest, WithoutBaseOnlyAbsoluteLinksResolve) {
  std::ostringstream out;
  const absl::StatusOr<size_t> unresolved =
      PrintLinks("<a href=relative>r</a><a href=http://abs.example/>a</a>", "", out);
  ASSERT_TRUE(unresolved.ok());
  EXPECT_EQ(out.str(), "http://abs.example/\n");
  EXPECT_EQ(*unresolved, 1u);  // the relative one: `crawl links` says so
  std::ostringstream with_base;
  ASSERT_TRUE(
      PrintLinks("<base href=http://b.example/x/><a href=relative>r</a>", "", with_base).ok());
  EXPECT_EQ(with_base.str(), "http://b.example/x/relative\n");
}

TEST(PrintLinksTest, UnparsableBaseIsAnError) {
  std::ostringstream out;
  const absl::Status status = PrintLinks("<a href=x>x</a>", "not a url", out).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
}  // namespace crawler
