// A ten-line crawler loop on the Sieve, built against the installed package.
// The "web" is a function: page i links to pages 2i+1 and 2i+2 (below 1000)
// and back to page 0. Exits 0 only if every page was visited exactly once.
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "sieve/sieve.h"

static std::vector<std::string> LinksOf(const std::string& url) {
  const int page = std::stoi(url.substr(url.rfind('/') + 1));
  std::vector<std::string> links = {"https://example.test/0"};
  for (int next : {2 * page + 1, 2 * page + 2}) {
    if (next < 1000) links.push_back("https://example.test/" + std::to_string(next));
  }
  return links;
}

int main() {
  auto sieve = sieve::Sieve::Create({.expected_count = 10'000, .fp_rate = 1e-6});
  if (!sieve.ok()) return std::fprintf(stderr, "%s\n", sieve.status().ToString().c_str()), 1;
  (*sieve)->Push("https://example.test/0");
  std::vector<std::thread> fetchers;
  for (int t = 0; t < 4; ++t) {
    fetchers.emplace_back([&] {
      while (std::optional<std::string> url = (*sieve)->Pop()) {  // empty: crawl complete
        for (const std::string& link : LinksOf(*url)) (*sieve)->Push(link);
        (*sieve)->MarkDone(*url);
      }
    });
  }
  for (std::thread& t : fetchers) t.join();

  const sieve::SieveStats stats = (*sieve)->Stats();
  std::printf("embed: visited %llu pages, dropped %llu seen links\n",
              static_cast<unsigned long long>(stats.done),
              static_cast<unsigned long long>(stats.dropped));
  const bool ok = stats.done == 1000 && stats.accepted == 1000 && stats.queued == 0 &&
                  stats.in_flight == 0 && stats.dropped == 1000;  // the 1000 links back to page 0
  return ok ? 0 : 1;
}
