// Random markup, random bytes and random charsets: ExtractLinks never fails
// or crashes (the sanitizer builds check memory), and its counters always add
// up. Fixed seeds, so every run tests the same pages.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "crawler/links.h"

namespace crawler {
namespace {

const char* const kFragments[] = {
    "<a href=",
    "<a href='",
    "<A HREF=\"",
    "\"",
    "'",
    ">",
    "</a>",
    "<base href=",
    "<meta http-equiv=refresh content='",
    "<meta name=robots content=nofollow>",
    "<meta charset=",
    "shift_jis>",
    "utf-16>",
    "<link rel='next nofollow' href=",
    "<area href=",
    "<iframe src=",
    "<frame src=",
    "<template>",
    "</template>",
    "<svg><a xlink:href=",
    "<!--",
    "-->",
    "<script>",
    "</script>",
    "<div>",
    "</div>",
    "<table><tr><td>",
    "&amp;",
    "&#x",
    "&#0;",
    "http://",
    "https://h\xC3\xA9.example/",
    "//",
    "../",
    "?q=",
    "#f",
    "javascript:",
    "mailto:",
    "http://[::1]/",
    "0; url=",
    "\xFF\xFE",
    "\xEF\xBB\xBF",
    "\x80\x81",
    " ",
    "\n",
    "\t",
    "\0",
    "x",
    "/p",
    "%zz",
    "%41",
};

const char* const kContentTypes[] = {
    "",
    "text/html",
    "text/html; charset=utf-8",
    "text/html; charset=shift_jis",
    "text/html; charset=utf-16",
    "text/html; charset=iso-2022-jp",
    "text/html; charset=utf-7",
    "text/html; charset=bogus",
    "text/html; charset=\"",
};

std::string RandomBrokenPage(std::mt19937_64& rng) {
  std::string page;
  const int pieces = static_cast<int>(rng() % 200);
  for (int i = 0; i < pieces; ++i) {
    if (rng() % 8 == 0) {
      page += static_cast<char>(rng() % 256);
    } else {
      const char* fragment = kFragments[rng() % std::size(kFragments)];
      page += *fragment == '\0' ? std::string(1, '\0') : std::string(fragment);
    }
  }
  return page;
}

TEST(RobustnessTest, RandomPagesNeverBreakTheCounters) {
  std::mt19937_64 rng(20240601);
  const Url page_url = *Url::Parse("http://example.com/a/b", nullptr);
  LinkOptions options;
  options.max_links = 7;
  int pages_with_links = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string page = RandomBrokenPage(rng);
    options.honor_nofollow = rng() % 2 == 0;
    const PageLinks found =
        ExtractLinks(page, kContentTypes[rng() % std::size(kContentTypes)], page_url, options);
    ASSERT_LE(found.links.size(), options.max_links);
    const size_t considered = std::min(found.links_found, options.max_links);
    ASSERT_EQ(found.links.size() + found.rejected + found.nofollow_skipped, considered);
    ASSERT_EQ(found.truncated, found.links_found > options.max_links);
    for (const ExtractedLink& link : found.links) {
      ASSERT_TRUE(link.url.starts_with("http://") || link.url.starts_with("https://")) << link.url;
      ASSERT_EQ(link.url.find('#'), std::string::npos) << link.url;
    }
    pages_with_links += found.links.empty() ? 0 : 1;
  }
  // The generator must actually produce links, or the checks above are empty.
  EXPECT_GT(pages_with_links, 300);
}

}  // namespace
}  // namespace crawler
