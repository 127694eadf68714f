// ExtractLinks keeps no state between calls: threads extracting at once get
// exactly what one thread gets (and TSan sees no race, ICU and Gumbo included).
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "crawler/links.h"

namespace crawler {
namespace {

std::string Page(int seed) {
  std::string html = "<meta charset=windows-1252><base href=/b" + std::to_string(seed) + "/>";
  for (int i = 0; i < 50; ++i) {
    html += "<p><a href=p" + std::to_string(seed * 100 + i) + ".html>caf\xE9</a>";
    html += "<a rel=nofollow href=/no>n</a><iframe src=/f" + std::to_string(i) + "></iframe>";
  }
  return html;
}

std::vector<std::string> Extract(const std::string& html, const Url& page_url) {
  std::vector<std::string> urls;
  for (const ExtractedLink& link : ExtractLinks(html, "text/html", page_url).links) {
    urls.push_back(link.url);
  }
  return urls;
}

TEST(ConcurrencyTest, ParallelExtractionsMatchSequentialOnes) {
  const Url page_url = *Url::Parse("http://example.com/", nullptr);
  constexpr int kThreads = 4;
  std::vector<std::string> pages;
  std::vector<std::vector<std::string>> expected;
  for (int t = 0; t < kThreads; ++t) {
    pages.push_back(Page(t));
    expected.push_back(Extract(pages.back(), page_url));
    ASSERT_EQ(expected.back().size(), 100u);
  }
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        if (Extract(pages[t], page_url) != expected[t]) ++mismatches[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace crawler
