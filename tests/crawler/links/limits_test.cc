// Hostile pages: deep nesting must not touch the call stack, a page with a
// million links must give a bounded result, and both in reasonable time.
#include <gtest/gtest.h>
#include <pthread.h>

#include <string>

#include "crawler/links.h"

namespace crawler {
namespace {

Url LimitsPageUrl() {
  absl::StatusOr<Url> url = Url::Parse("http://example.com/", nullptr);
  EXPECT_TRUE(url.ok());
  return *url;
}

struct DeepPageRun {
  const std::string* html;
  PageLinks result;
};

void* ExtractOnThread(void* arg) {
  auto* run = static_cast<DeepPageRun*>(arg);
  run->result = ExtractLinks(*run->html, "text/html", LimitsPageUrl());
  return nullptr;
}

// Runs ExtractLinks on a thread whose stack is far smaller than what a
// recursive walk (or gumbo_destroy_output) needs for this page: 100 000
// levels at even 32 bytes a frame is 3.2 MB.
PageLinks ExtractWithSmallStack(const std::string& html, size_t stack_bytes) {
  DeepPageRun run{&html, {}};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack_bytes);
  pthread_t thread;
  EXPECT_EQ(pthread_create(&thread, &attr, &ExtractOnThread, &run), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  return std::move(run.result);
}

TEST(LimitsTest, NestingHundredThousandDeepNeedsNoStack) {
  constexpr int kDepth = 100000;
  std::string html = "<a href=/top>t</a>";
  for (int i = 0; i < kDepth; ++i) html += "<span>";
  html += "<a href=/deepest>x</a>";
#ifdef CRAWL_SANITIZED
  constexpr size_t kStack = size_t{4} << 20;  // ASan frames are larger; still < 100 000 frames
#else
  constexpr size_t kStack = size_t{512} << 10;
#endif
  const PageLinks page = ExtractWithSmallStack(html, kStack);
  ASSERT_EQ(page.links.size(), 2u);
  EXPECT_EQ(page.links[0].url, "http://example.com/top");
  EXPECT_EQ(page.links[1].url, "http://example.com/deepest");
}

std::string NestedDivs(int depth) {
  std::string html = "<a href=/top>t</a>";
  for (int i = 0; i < depth; ++i) html += "<div>";
  return html + "<a href=/deepest>x</a>";
}

TEST(LimitsTest, ModerateBlockNestingIsParsedWhole) {
  const PageLinks page = ExtractLinks(NestedDivs(3000), "text/html", LimitsPageUrl());
  EXPECT_EQ(page.links.size(), 2u);
  EXPECT_FALSE(page.truncated);
}

TEST(LimitsTest, QuadraticBlockNestingIsCutAtMaxNestingDepth) {
  // Unguarded, Gumbo needs ~25 s for this 500 KB page (see nesting_guard.h).
  const PageLinks page = ExtractLinks(NestedDivs(100000), "text/html", LimitsPageUrl());
  ASSERT_EQ(page.links.size(), 1u);
  EXPECT_EQ(page.links[0].url, "http://example.com/top");
  EXPECT_TRUE(page.truncated);
  LinkOptions shallow;
  shallow.max_nesting_depth = 10;
  EXPECT_TRUE(ExtractLinks(NestedDivs(11), "text/html", LimitsPageUrl(), shallow).truncated);
  EXPECT_FALSE(ExtractLinks(NestedDivs(10), "text/html", LimitsPageUrl(), shallow).truncated);
}

// The guard skips its tag walk on a page with at most max_nesting_depth start
// tags ('<' then a letter, counted 16 bytes at a time): the cut must be the
// walk's whatever the page's length and alignment. n divs at depth limit n
// are whole; n + 1 are cut.
TEST(LimitsTest, TheNestingCutIsExactAroundTheLessThanCount) {
  for (const size_t pad : {0, 1, 7, 15}) {
    for (const int n : {3, 15, 16, 17, 255, 1000, 5000}) {
      LinkOptions options;
      options.max_nesting_depth = static_cast<size_t>(n);
      std::string html = std::string(pad, ' ');
      // '<'s that are not start tags, which the count must not take for them.
      for (int i = 0; i < 20; ++i) html += "</p>< 3<!--x--><\xc3\xa9";
      for (int i = 0; i < n; ++i) html += "<div>";
      const PageLinks at_limit = ExtractLinks(html + "x", "text/html", LimitsPageUrl(), options);
      EXPECT_FALSE(at_limit.truncated) << n << " pad " << pad;
      const PageLinks past = ExtractLinks(html + "<div>x", "text/html", LimitsPageUrl(), options);
      EXPECT_TRUE(past.truncated) << n << " pad " << pad;
      EXPECT_EQ(past.parsed_bytes, html.size()) << n << " pad " << pad;
    }
  }
}

// The count keeps one counter per byte position of a 16-byte step: a start
// tag every 16 bytes puts all of them in one counter, up to its 255 per block.
TEST(LimitsTest, TheNestingCutIsExactWithOneStartTagEverySixteenBytes) {
  for (const size_t pad : {0, 9}) {
    for (const int n : {254, 255, 256, 600}) {
      LinkOptions options;
      options.max_nesting_depth = static_cast<size_t>(n);
      std::string html = std::string(pad, ' ');
      for (int i = 0; i < n; ++i) html += "<div>           ";  // 16 bytes
      const PageLinks at_limit = ExtractLinks(html + "x", "text/html", LimitsPageUrl(), options);
      EXPECT_FALSE(at_limit.truncated) << n << " pad " << pad;
      const PageLinks past =
          ExtractLinks(html + "<div>           x", "text/html", LimitsPageUrl(), options);
      EXPECT_TRUE(past.truncated) << n << " pad " << pad;
      EXPECT_EQ(past.parsed_bytes, html.size()) << n << " pad " << pad;
    }
  }
}

TEST(LimitsTest, ClosedElementsDoNotCountTowardTheDepth) {
  LinkOptions shallow;
  shallow.max_nesting_depth = 3;
  std::string html;
  for (int i = 0; i < 100; ++i) html += "<div><b>x</b></DIV><!-- <div><div><div><div> -->";
  html += "<a href=/end>e</a>";
  const PageLinks page = ExtractLinks(html, "text/html", LimitsPageUrl(), shallow);
  EXPECT_EQ(page.links.size(), 1u);
  EXPECT_FALSE(page.truncated);
}

// One tag with 100 000 attributes cost 25 s of CPU (Gumbo
// compares each attribute with the tag's earlier ones). The page is cut
// before such a tag, with a reason; tags at the cap are parsed whole.
std::string ManyAttributes(int count) {
  std::string html = "<a href=/before>b</a><div";
  for (int i = 0; i < count; ++i) html += " a" + std::to_string(i) + "='x>y'";
  return html + "><a href=/after>a</a></div>";
}

TEST(LimitsTest, ATagWithTooManyAttributesCutsThePageBeforeIt) {
  const PageLinks page = ExtractLinks(ManyAttributes(100000), "text/html", LimitsPageUrl());
  ASSERT_EQ(page.links.size(), 1u);
  EXPECT_EQ(page.links[0].url, "http://example.com/before");
  EXPECT_TRUE(page.truncated);
  EXPECT_EQ(page.truncated_reason, "attributes_per_tag");
  EXPECT_EQ(page.parsed_bytes, std::string("<a href=/before>b</a>").size());

  LinkOptions few;
  few.max_attributes_per_tag = 5;
  const PageLinks at_cap = ExtractLinks(ManyAttributes(5), "text/html", LimitsPageUrl(), few);
  EXPECT_EQ(at_cap.links.size(), 2u);  // quoted '>' inside values did not end the tag
  EXPECT_FALSE(at_cap.truncated);
  EXPECT_TRUE(ExtractLinks(ManyAttributes(6), "text/html", LimitsPageUrl(), few).truncated);
  // Comments and end tags are not start tags.
  const std::string commented = "<!-- <div a b c d e f g> --></div a b c d e f g><a href=/x>x</a>";
  EXPECT_FALSE(ExtractLinks(commented, "text/html", LimitsPageUrl(), few).truncated);
}

TEST(LimitsTest, MillionLinksGiveABoundedResult) {
  // ~19 MB of links. With the defaults, Gumbo sees only the first
  // max_html_bytes (its tree is the memory that grows with the page) and at
  // most max_links links are kept.
  constexpr int kLinks = 1000000;
  std::string html;
  html.reserve(kLinks * 20);
  size_t complete_in_cap = 0;  // start tags that end within max_html_bytes
  const LinkOptions options;
  for (int i = 0; i < kLinks; ++i) {
    html += "<a href=" + std::to_string(i) + ">";
    if (html.size() <= options.max_html_bytes) ++complete_in_cap;
    html += "</a>";
  }
  const PageLinks page = ExtractLinks(html, "text/html", LimitsPageUrl(), options);
  EXPECT_TRUE(page.truncated);
  EXPECT_EQ(page.links.size(), options.max_links);
  EXPECT_EQ(page.links.back().url, "http://example.com/" + std::to_string(options.max_links - 1));
  EXPECT_EQ(page.links_found, complete_in_cap);
  EXPECT_LT(complete_in_cap, static_cast<size_t>(kLinks) / 2);
}

TEST(LimitsTest, MaxLinksAloneBoundsTheOutputOfAWholeMillionLinkPage) {
#ifdef CRAWL_SANITIZED
  // The same shape at a fifth of the size: TSan needs ~2 GB and 25 s for the
  // whole million-element tree, too much for CI; the plain build runs it all.
  constexpr int kLinks = 200000;
#else
  constexpr int kLinks = 1000000;
#endif
  std::string html;
  html.reserve(kLinks * 8);
  for (int i = 0; i < kLinks; ++i) html += "<a href=/>";  // adjacent <a>s close each other
  LinkOptions options;
  options.max_html_bytes = html.size();
  options.max_links = 1000;
  const PageLinks page = ExtractLinks(html, "text/html", LimitsPageUrl(), options);
  EXPECT_EQ(page.links_found, static_cast<size_t>(kLinks));
  EXPECT_EQ(page.links.size(), 1000u);
  EXPECT_TRUE(page.truncated);
}

}  // namespace
}  // namespace crawler
