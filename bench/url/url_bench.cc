// url-bench: how long the crawler spends per link in Url::Parse and
// ResolveLink. Prints the setup, the expectation and the measurement.
//
// Expectation: a typical relative link ("../img/a.png", "?page=2") touches
// each input byte a few times (scan, percent-encode table lookup, dot-segment
// check) and allocates once for the result, so it should cost on the order
// of 100-300 ns on a current x86 core; the target is well under 1 us.
// A link whose host is non-ASCII goes through ICU's UTS #46 and costs about
// a microsecond; those are rare.
#include <time.h>

#include <cstdio>
#include <string>
#include <vector>

#include "crawler/url.h"

namespace {

const std::vector<std::string> kLinks = {
    "../img/logo.png",
    "?page=2",
    "/search?q=bloom+filter&lang=en",
    "article-1234.html#comments",
    "https://cdn.example.net/static/app.js?v=3",
    "//other.example.org/path/to/page",
    "./sub/dir/./index.html",
    "mailto:someone@example.com",
    "/%7Euser/home%2fpage",
    "http://EXAMPLE.com:80/a/../b/c",
};

// CPU time of this thread, not wall time: the benchmark often shares a
// small machine with other jobs, and waiting for a core is not parsing.
double ThreadCpuNanos() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

template <typename F>
double NanosPerCall(int iterations, F&& f) {
  const double start = ThreadCpuNanos();
  for (int i = 0; i < iterations; ++i) f(i);
  return (ThreadCpuNanos() - start) / iterations;
}

}  // namespace

int main() {
  std::printf("url-bench (build type %s)\n", CRAWL_BUILD_TYPE);
#ifndef NDEBUG
  std::printf("WARNING: built without NDEBUG; numbers are not representative\n");
#endif
  const auto base = crawler::Url::Parse("https://www.example.com/blog/2024/05/post.html?ref=home");
  if (!base.ok()) return 1;
  const int kIterations = 2'000'000;
  size_t sink = 0;
  const double parse_ns = NanosPerCall(kIterations, [&](int i) {
    auto url = crawler::Url::Parse(kLinks[i % kLinks.size()], &*base);
    sink += url.ok() ? url->href().size() : 1;
  });
  const double resolve_ns = NanosPerCall(kIterations, [&](int i) {
    auto link = crawler::ResolveLink(*base, kLinks[i % kLinks.size()]);
    sink += link.ok() ? link->size() : 1;
  });
  const double idna_ns = NanosPerCall(kIterations / 20, [&](int i) {
    auto link = crawler::ResolveLink(*base, i % 2 ? "http://bücher.example/" : "http://ΣΑΣ.gr/x");
    sink += link.ok() ? link->size() : 1;
  });
  // A calibration row: on a loaded machine every figure grows by about the
  // same factor as this one (about 15 ns on an idle core).
  const double copy_ns = NanosPerCall(kIterations, [&](int) {
    std::string copy(base->href());
    sink += copy.size();
  });
  std::printf("base: %s, %zu links mixed (relative, absolute, mailto, escapes)\n",
              base->href().c_str(), kLinks.size());
  std::printf("%-28s %10s   %s\n", "operation", "CPU ns/call", "expected");
  std::printf("%-28s %10.1f   %s\n", "baseline: copy base href", copy_ns, "~15 (one malloc)");
  std::printf("%-28s %10.1f   %s\n", "Url::Parse (with base)", parse_ns, "100-300, < 1000");
  std::printf("%-28s %10.1f   %s\n", "ResolveLink", resolve_ns, "100-300, < 1000");
  std::printf("%-28s %10.1f   %s\n", "ResolveLink, IDNA host", idna_ns, "~1000 (ICU)");
  std::printf("(checksum %zu)\n", sink);
  return 0;
}
