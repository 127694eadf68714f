// MetricsServer: a tiny HTTP server answering GET /metrics with the text a
// callback renders (metrics.h), for Prometheus to scrape during a crawl.
// One listening thread and one worker (cpp-httplib): a scrape renders under
// the crawl's counters' own locks, so a second worker would only queue.
//
//   absl::StatusOr<crawler::MetricsAddress> at = crawler::ParseMetricsAddress("9100");
//   auto server = crawler::MetricsServer::Start(*at, [&] { return RenderMetrics(...); });
//   // ... crawl; (*server)->port() is the bound port (useful with port 0)
//   server->reset();   // stops listening, joins the thread
//
// Only GET /metrics (and HEAD) answer 200; any other path is 404.
//
// Threading: `render` is called from the server's worker thread, so it must
// be safe to call concurrently with the crawl. Start and the destructor from
// one thread.
#ifndef CRAWLER_METRICS_SERVER_H_
#define CRAWLER_METRICS_SERVER_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace crawler {

// Where --metrics listens.
struct MetricsAddress {
  std::string host;  // as given ("0.0.0.0", "::1", "localhost"), or 127.0.0.1
  int port = 0;      // 0 = any free port (the server logs which)
  bool operator==(const MetricsAddress&) const = default;
};

// "9100" and ":9100" listen on loopback (127.0.0.1): the crawler never opens
// its metrics to the network by itself. "HOST:PORT" and "[V6]:PORT" listen on
// exactly the host given, whatever it is ("0.0.0.0:9100" exposes them to
// everyone who can reach the machine: the user typed it). Port in [0, 65535].
// Errors are InvalidArgumentError quoting the text.
absl::StatusOr<MetricsAddress> ParseMetricsAddress(std::string_view text);

// True for 127.0.0.0/8, ::1 and "localhost".
bool IsLoopbackHost(std::string_view host);

class MetricsServer {
 public:
  using Render = std::function<std::string()>;

  // Binds at once (an address in use is an UnavailableError naming it) and
  // serves from its own thread until destroyed.
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Start(const MetricsAddress& address,
                                                              Render render);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  int port() const { return port_; }
  // "http://127.0.0.1:9100/metrics" ("[::1]" for an IPv6 host).
  std::string Url() const;

  class Impl;

 private:
  MetricsServer(std::unique_ptr<Impl> impl, std::string host, int port);
  std::unique_ptr<Impl> impl_;
  std::string host_;
  int port_;
};

}  // namespace crawler

#endif  // CRAWLER_METRICS_SERVER_H_
