// MetricsServer on cpp-httplib: bind first (so an address in use is an error
// at start, not a log line later), then listen on a thread of our own.
#include "crawler/metrics_server.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "crawler/metrics.h"

namespace crawler {

class MetricsServer::Impl {
 public:
  explicit Impl(Render render) : render_(std::move(render)) {
    // One worker: scrapes come every few seconds, and a slow client must not
    // make the server start threads.
    server_.new_task_queue = [] { return new httplib::ThreadPool(1); };
    server_.set_keep_alive_max_count(1);
    server_.set_read_timeout(5, 0);
    server_.set_write_timeout(5, 0);
    server_.Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
      response.set_content(render_(), kMetricsContentType);
    });
  }
  ~Impl() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  // The bound port, or -1.
  int Bind(const MetricsAddress& address) {
    if (address.port == 0) return server_.bind_to_any_port(address.host);
    return server_.bind_to_port(address.host, address.port) ? address.port : -1;
  }
  // Returns once the server runs: stop() before that would be lost
  // (cpp-httplib's stop only acts on a running server) and the join hang.
  void Serve() {
    thread_ = std::thread([this] {
      server_.listen_after_bind();
      listen_returned_.store(true);
    });
    while (!server_.is_running() && !listen_returned_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

 private:
  Render render_;
  httplib::Server server_;
  std::atomic<bool> listen_returned_{false};
  std::thread thread_;
};

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(const MetricsAddress& address,
                                                                    Render render) {
  auto impl = std::make_unique<Impl>(std::move(render));
  const int port = impl->Bind(address);
  if (port < 0) {
    return absl::UnavailableError(absl::StrCat("--metrics ", address.host, ":", address.port,
                                               ": cannot listen there (address in use, or not "
                                               "an address of this machine)"));
  }
  impl->Serve();
  return std::unique_ptr<MetricsServer>(new MetricsServer(std::move(impl), address.host, port));
}

MetricsServer::MetricsServer(std::unique_ptr<Impl> impl, std::string host, int port)
    : impl_(std::move(impl)), host_(std::move(host)), port_(port) {}

MetricsServer::~MetricsServer() = default;

std::string MetricsServer::Url() const {
  const bool v6 = host_.find(':') != std::string::npos;
  return absl::StrCat("http://", v6 ? "[" : "", host_, v6 ? "]" : "", ":", port_, "/metrics");
}

}  // namespace crawler
