// The header's threading rule: every function may be called concurrently,
// including the first IDNA call that creates ICU's shared UTS #46 object.
// Run under TSan in CI.
#include <string>
#include <thread>
#include <vector>

#include "crawler/url.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

const std::vector<std::string> kLinks = {"../x/y.html",
                                         "?page=3",
                                         "//B\xC3\xBC"
                                         "cher.de/",
                                         "http://\xCE\xA3\xCE\x91\xCE\xA3.gr/",
                                         "https://[::1]:8443/a",
                                         "mailto:a@b.c",
                                         "/%7e/%e9",
                                         "http://0x7f.1/",
                                         "g#frag"};

TEST(UrlConcurrencyTest, ConcurrentResolutionMatchesSequential) {
  const Url base = *Url::Parse("https://www.example.com/blog/post.html");
  std::vector<std::string> expected;
  std::vector<std::thread> threads;
  std::vector<std::vector<std::string>> results(4);
  for (size_t t = 0; t < results.size(); ++t) {
    threads.emplace_back([&base, &out = results[t]] {
      for (int round = 0; round < 200; ++round) {
        for (const std::string& link : kLinks) {
          const absl::StatusOr<std::string> resolved = ResolveLink(base, link);
          const std::string text = resolved.ok() ? *resolved : resolved.status().ToString();
          if (round == 0) out.push_back(text);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::string& link : kLinks) {
    const absl::StatusOr<std::string> resolved = ResolveLink(base, link);
    expected.push_back(resolved.ok() ? *resolved : resolved.status().ToString());
  }
  EXPECT_EQ(expected[2], "https://xn--bcher-kva.de/");
  EXPECT_EQ(expected[3], "http://xn--mxa9ab.gr/");
  for (const std::vector<std::string>& result : results) EXPECT_EQ(result, expected);
}

}  // namespace
}  // namespace crawler
