// WebGraph: which links each page of the simulated web carries (see
// testsite/web_options.h), as a pure function of WebOptions. Nothing is stored
// per page or per host: a page's links are drawn from a generator seeded by
// (seed, host, page) each time they are asked for, so serving a web of 5e8
// pages costs a few KB of state. It knows nothing of HTTP (simulated_web.h).
//
// Shape of a page with L = links_per_page links, of which
// n = round(L * on_host_share) stay on the host:
//   - tree links: page p's children p*f+1 .. p*f+f on its host, f = max(1, n/2),
//     those that exist; so every page is reachable from its host's root and a
//     host of 1e8 pages is ~5 levels deep at f = 40;
//   - the other on-host links: uniform random pages of the host;
//   - L - n off-host links: a host drawn with probability proportional to its
//     size (never the page's own host), then a uniform page of it.
// The links come in a seeded random order.
//
//   testsite::WebGraph graph(options);
//   for (const testsite::WebLink& link : graph.Links(/*host=*/0, /*page=*/0)) ...
//   graph.HostPages(0);                 // 100,000,000 at the defaults
//
// Threading: immutable after construction; all methods are safe concurrently.
#ifndef TESTSITE_WEB_GRAPH_H_
#define TESTSITE_WEB_GRAPH_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "testsite/web_options.h"

namespace testsite {

struct WebLink {
  uint64_t host = 0;
  uint64_t page = 0;  // 0 is the host's root, "/"
  bool operator==(const WebLink&) const = default;
};

class WebGraph {
 public:
  // `options` must be valid (ValidateWebOptions). Sums the host sizes once:
  // O(hosts) time, about 30 ms per million hosts; O(1) memory beyond a table
  // of the first 4096 hosts' cumulative sizes.
  explicit WebGraph(const WebOptions& options);

  uint64_t hosts() const { return options_.hosts; }
  const WebOptions& options() const { return options_; }
  // Pages of host `host` < hosts().
  uint64_t HostPages(uint64_t host) const;
  // Sum of HostPages over all hosts.
  uint64_t TotalPages() const { return total_pages_; }

  // The links of page `page` < HostPages(host) of `host`, in page order.
  std::vector<WebLink> Links(uint64_t host, uint64_t page) const;

  // A host drawn from a uniform `u` in [0, 1) with probability proportional
  // to its size: exactly HostPages for the first 4096 hosts (a table); beyond,
  // to the size curve largest / (i + 1)^s before its rounding down and
  // min_host_pages (the inverse of the curve's integral over [i+0.5, i+1.5)),
  // which is what a host of a handful of pages rounds away.
  uint64_t HostForUniform(double u) const;

  // Whether host `host` serves a robots.txt (allow all) or a 404.
  bool HasRobotsTxt(uint64_t host) const { return host % options_.robots_every == 0; }

  // "127.1.0.5" for host 5.
  static std::string HostAddress(uint64_t host);
  // The host of a dotted IPv4 address (an optional ":port" is ignored), or
  // nullopt when it is not one of the first `hosts` web addresses.
  std::optional<uint64_t> HostOfAddress(std::string_view address) const;

 private:
  // Continuous size curve largest / x^s; its integral from `from` to `to`.
  double CurveIntegral(double from, double to) const;
  double InverseCurveIntegral(double from, double mass) const;

  WebOptions options_;
  uint64_t total_pages_ = 0;
  // Cumulative HostPages of the first head_.size() hosts.
  std::vector<double> head_;
  double tail_mass_ = 0;  // integral of the curve over the hosts after the head
};

}  // namespace testsite

#endif  // TESTSITE_WEB_GRAPH_H_
