// SimulatedWeb: serves the many-host web of testsite/web_graph.h on loopback,
// every host on one port, for the scale bench (bench/scale) and its tests.
//
// One listening socket, bound to INADDR_ANY:port and to the device "lo"
// (SO_BINDTODEVICE), with a socket filter that drops every packet whose IPv4
// destination lies outside 127.0.0.0/8: it accepts connections to any
// 127.x.y.z and nothing else (a connection to the machine's own external
// address also travels over "lo"; it is refused or dropped). The host a request is
// for comes from its Host header ("127.1.0.5:PORT"), else from the socket's
// local address. Pages are rendered on the fly from the graph: no state per
// page or per host is kept, besides two bits per host (requested? linked to?).
//
// URL space of host i (http://<127.1.0.0 + i>:PORT):
//   /               page 0
//   /p/<j>.html     page j, 1 <= j < HostPages(i): text/html, ~page_bytes of
//                   filler and links_per_page links
//   /robots.txt     "User-agent: *\nAllow: /\n" when HasRobotsTxt(i), else 404
//   anything else, or a host outside the web: 404
//
//   auto web = testsite::SimulatedWeb::Start({.hosts = 1000});
//   if (!web.ok()) return web.status();
//   Crawl((*web)->RootUrl(0));                      // "http://127.1.0.0:PORT/"
//   (*web)->DistinctHostsRequested();               // hosts reached so far
//
// Threading: every method is safe to call concurrently, also while requests
// are served. Handlers run on the server's worker threads.
#ifndef TESTSITE_SIMULATED_WEB_H_
#define TESTSITE_SIMULATED_WEB_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "testsite/web_graph.h"
#include "testsite/web_options.h"

namespace testsite {

class SimulatedWeb {
 public:
  // Validates the options, binds 0.0.0.0:port restricted to loopback (see
  // above; an error if the kernel refuses the device binding or the filter)
  // and serves on a background thread. Returns once it accepts connections.
  static absl::StatusOr<std::unique_ptr<SimulatedWeb>> Start(const WebOptions& options);
  ~SimulatedWeb();
  SimulatedWeb(const SimulatedWeb&) = delete;
  SimulatedWeb& operator=(const SimulatedWeb&) = delete;

  const WebGraph& graph() const;
  int port() const;
  // "http://127.1.0.5:PORT/" for host 5.
  std::string RootUrl(uint64_t host) const;
  // "http://127.1.0.5:PORT/p/7.html" for host 5, page 7 ("/" for page 0).
  std::string PageUrl(uint64_t host, uint64_t page) const;

  uint64_t TotalRequests() const;
  uint64_t PagesServed() const;     // 200s of pages
  uint64_t RobotsRequests() const;  // /robots.txt, 200 or 404
  uint64_t NotFound() const;        // other 404s
  uint64_t DistinctHostsRequested() const;
  // Hosts that a served page links to (its own included): the hosts a crawler
  // that fetched those pages knows of, queued or fetched.
  uint64_t DistinctHostsLinked() const;
  // Wall-clock time of the first request's arrival, if any came yet.
  std::optional<std::chrono::system_clock::time_point> FirstRequestTime() const;

  // Stops accepting and waits for the worker threads (about
  // keep_alive_timeout_s at worst while a client holds a connection).
  // Idempotent; counts stay readable.
  void Stop();

 private:
  class Impl;
  explicit SimulatedWeb(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace testsite

#endif  // TESTSITE_SIMULATED_WEB_H_
