// Hostile pages: deep nesting must not touch the call stack, a page with a
// million links must give a bounded result, and both in reasonable time.
#include <gtest/gtest.h>
#include <pthread.h>

#include <string>

#include "crawler/links.h"

namespace crawler {
namespace {

Url PageUrl() {
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
  run->result = ExtractLinks(*run->html, "text/html", PageUrl());
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

TEST(LimitsTest, MillionLinksGiveABoundedResult) {
  constexpr int kLinks = 1000000;
  std::string html;
  html.reserve(kLinks * 20);
  for (int i = 0; i < kLinks; ++i) html += "<a href=" + std::to_string(i) + "></a>";
  LinkOptions options;                   // the default max_links
  options.max_html_bytes = html.size();  // parse it all (the default cap is 16 MiB)
  const PageLinks page = ExtractLinks(html, "text/html", PageUrl(), options);
  EXPECT_EQ(page.links_found, static_cast<size_t>(kLinks));
  EXPECT_EQ(page.links.size(), options.max_links);
  EXPECT_TRUE(page.truncated);
  EXPECT_EQ(page.links.back().url, "http://example.com/" + std::to_string(options.max_links - 1));
}

}  // namespace
}  // namespace crawler
