// WebOptions: a simulated web of many hosts on loopback, for the scale bench
// (bench/scale). Host i (0 <= i < hosts) is the address
// 127.1.0.0 + i, every host on the same port, so a crawler sees up to ~16
// million distinct hosts without a name server and without leaving loopback.
// The web is a pure function of these options (and of the port, which appears
// in links to other hosts); see testsite/web_graph.h for its shape and
// testsite/simulated_web.h for the server.
//
//   testsite::WebOptions options;
//   options.hosts = 100000;
//   options.largest_host_pages = 10'000'000;
//   auto web = testsite::SimulatedWeb::Start(options);
//   ... (*web)->RootUrl(0)  // "http://127.1.0.0:PORT/"
//
// Threading: a plain value; copy it freely.
#ifndef TESTSITE_WEB_OPTIONS_H_
#define TESTSITE_WEB_OPTIONS_H_

#include <cstdint>

#include "absl/status/status.h"

namespace testsite {

// Host i's address is kFirstWebAddress + i (host byte order): 127.1.0.0,
// 127.1.0.1, ..., up to 127.255.255.254 (the /8's broadcast address is left out).
inline constexpr uint32_t kFirstWebAddress = 0x7F010000;               // 127.1.0.0
inline constexpr uint64_t kMaxWebHosts = 0x7FFFFFFE - 0x7F010000 + 1;  // 16,711,679

struct WebOptions {
  // Distinct hosts, each its own loopback address. 1e5..1e6 makes a frontier
  // hold as many host queues as a large crawl does.
  uint64_t hosts = 1'000'000;
  // Host sizes are Zipf-like: host i has max(min_host_pages,
  // floor(largest_host_pages / (i + 1)^zipf_exponent)) pages. The defaults
  // give host 0 1e8 pages, hosts 0-9 over 6e6 each, the median host (i = 5e5)
  // 14 and the last one 6: ~5.3e8 pages in all, a few giants and a long tail
  // of hosts with a handful of pages, as on the web.
  uint64_t largest_host_pages = 100'000'000;
  double zipf_exponent = 1.2;
  uint64_t min_host_pages = 1;
  // Links on each page (duplicates possible on small hosts).
  int links_per_page = 100;
  // Share of a page's links that stay on its host (rounded per page); the
  // rest go to other hosts drawn with probability proportional to their size,
  // so big hosts get most of the in-links.
  double on_host_share = 0.8;
  // Seeds the links and the filler text. Same seed, same web.
  uint64_t seed = 1;
  // 0 picks a free ephemeral port; see SimulatedWeb::port().
  int port = 0;
  // Server worker threads: one per open keep-alive connection, so at least a
  // crawler's --connections.
  int threads = 256;
  // Filler text per page besides the links (~40 bytes each), seeded words.
  int page_bytes = 1024;
  // Host i serves an allow-all robots.txt when i % robots_every == 0 and a
  // 404 otherwise (both mean "allowed"); 1 = every host has one.
  uint64_t robots_every = 2;
  // Seconds an idle keep-alive connection keeps its worker thread. cpp-httplib
  // polls an idle connection in a loop, so each one costs CPU: 1 s (20 of a
  // host's 50 ms delays) halved the web's CPU per page against 5 s on a crawl
  // of 15,000 pages over 256 connections (6.7 vs 13.0 CPU-seconds).
  int keep_alive_timeout_s = 1;
};

// Returns InvalidArgument naming the first bad field.
absl::Status ValidateWebOptions(const WebOptions& options);

}  // namespace testsite

#endif  // TESTSITE_WEB_OPTIONS_H_
