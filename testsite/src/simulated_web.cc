#include "testsite/simulated_web.h"

#include <httplib.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "content_types.h"
#include "loopback_only.h"
#include "site_paths.h"
#include "web_page.h"

namespace testsite {
namespace {

constexpr int kWebListenBacklog = 4096;
constexpr size_t kWebKeepAliveMaxRequests = 1000000;
constexpr auto kWebStartTimeout = std::chrono::seconds(10);
constexpr char kRobotsTxt[] = "User-agent: *\nAllow: /\n";
constexpr char kNotFound[] = "<html><body><h1>404 Not Found</h1></body></html>\n";

// As in test_site.cc: a client hanging up mid-body must not kill the process.
void BlockSigpipeInWebThread() {
  sigset_t sigpipe;
  sigemptyset(&sigpipe);
  sigaddset(&sigpipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &sigpipe, nullptr);
}

class WebListeningServer : public httplib::Server {
 public:
  bool RaiseBacklog(int backlog) { return ::listen(svr_sock_, backlog) == 0; }
};

// Sends `body` as is: cpp-httplib compresses only plain set_content bodies,
// and brotli would cost more than rendering the page.
void SetWebBody(httplib::Response& response, int status, std::string body, const char* type) {
  response.status = status;
  auto shared = std::make_shared<const std::string>(std::move(body));
  response.set_content_provider(shared->size(), type,
                                [shared](size_t offset, size_t length, httplib::DataSink& sink) {
                                  return sink.write(shared->data() + offset, length);
                                });
}

}  // namespace

class SimulatedWeb::Impl {
 public:
  explicit Impl(const WebOptions& options)
      : graph_(options),
        requested_((options.hosts + 63) / 64),
        linked_((options.hosts + 63) / 64) {}
  ~Impl() { Stop(); }

  absl::Status Start();
  void Stop();

  const WebGraph graph_;
  int port_ = 0;
  std::atomic<uint64_t> requests_{0};
  std::atomic<uint64_t> pages_{0};
  std::atomic<uint64_t> robots_{0};
  std::atomic<uint64_t> not_found_{0};
  std::atomic<uint64_t> distinct_hosts_{0};
  std::atomic<uint64_t> linked_hosts_{0};
  std::atomic<int64_t> first_request_ns_{0};  // since the epoch; 0 = none yet

 private:
  void Serve(const httplib::Request& request, httplib::Response& response);
  std::optional<uint64_t> HostOf(const httplib::Request& request) const;
  // Sets `host`'s bit in `bits`; counts it in `distinct` the first time.
  static void NoteHost(uint64_t host, std::vector<std::atomic<uint64_t>>& bits,
                       std::atomic<uint64_t>& distinct);

  // One bit per host each: hosts / 8 bytes (125 KB for a million hosts).
  std::vector<std::atomic<uint64_t>> requested_;
  std::vector<std::atomic<uint64_t>> linked_;
  absl::Status socket_setup_;  // written by the socket-options callback, before bind
  WebListeningServer server_;
  std::thread listen_thread_;
  std::once_flag stop_once_;
};

absl::Status SimulatedWeb::Impl::Start() {
  const WebOptions& options = graph_.options();
  const auto threads = static_cast<size_t>(options.threads);
  server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_.set_keep_alive_max_count(kWebKeepAliveMaxRequests);
  server_.set_keep_alive_timeout(options.keep_alive_timeout_s);
  server_.set_tcp_nodelay(true);
  server_.set_socket_options([this](socket_t socket) {
    const int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    socket_setup_ = RestrictToLoopback(socket);
  });
  server_.set_pre_routing_handler(
      [this](const httplib::Request& request, httplib::Response& response) {
        Serve(request, response);
        return httplib::Server::HandlerResponse::Handled;
      });
  port_ = options.port == 0 ? server_.bind_to_any_port("0.0.0.0")
                            : (server_.bind_to_port("0.0.0.0", options.port) ? options.port : -1);
  if (!socket_setup_.ok()) return socket_setup_;
  if (port_ <= 0) {
    return absl::UnavailableError(absl::StrCat("testsite: cannot listen on port ", options.port));
  }
  if (!server_.RaiseBacklog(kWebListenBacklog)) {
    return absl::InternalError("testsite: cannot raise the listen backlog");
  }
  listen_thread_ = std::thread([this] {
    BlockSigpipeInWebThread();  // the worker threads inherit the mask
    server_.listen_after_bind();
  });
  const auto deadline = std::chrono::steady_clock::now() + kWebStartTimeout;
  while (!server_.is_running()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return absl::DeadlineExceededError("testsite: server did not start");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return absl::OkStatus();
}

void SimulatedWeb::Impl::Stop() {
  std::call_once(stop_once_, [this] {
    server_.stop();
    if (listen_thread_.joinable()) listen_thread_.join();
  });
}

std::optional<uint64_t> SimulatedWeb::Impl::HostOf(const httplib::Request& request) const {
  const std::string host_header = request.get_header_value("Host");
  if (!host_header.empty()) return graph_.HostOfAddress(host_header);
  return graph_.HostOfAddress(request.local_addr);
}

void SimulatedWeb::Impl::NoteHost(uint64_t host, std::vector<std::atomic<uint64_t>>& bits,
                                  std::atomic<uint64_t>& distinct) {
  const uint64_t bit = uint64_t{1} << (host % 64);
  if ((bits[host / 64].load(std::memory_order_relaxed) & bit) != 0) return;  // the usual case
  if ((bits[host / 64].fetch_or(bit, std::memory_order_relaxed) & bit) == 0) {
    distinct.fetch_add(1, std::memory_order_relaxed);
  }
}

void SimulatedWeb::Impl::Serve(const httplib::Request& request, httplib::Response& response) {
  if (requests_.fetch_add(1, std::memory_order_relaxed) == 0) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    int64_t none = 0;
    first_request_ns_.compare_exchange_strong(
        none, std::chrono::duration_cast<std::chrono::nanoseconds>(now).count());
  }
  if (request.method != "GET" && request.method != "HEAD") {
    response.status = 405;
    response.set_header("Allow", "GET, HEAD");
    return;
  }
  const std::optional<uint64_t> host = HostOf(request);
  const std::string& path = request.path;
  if (host) NoteHost(*host, requested_, distinct_hosts_);
  if (host && path == "/robots.txt") {
    robots_.fetch_add(1, std::memory_order_relaxed);
    if (graph_.HasRobotsTxt(*host)) return SetWebBody(response, 200, kRobotsTxt, "text/plain");
    return SetWebBody(response, 404, kNotFound, kHtml);
  }
  const std::optional<uint64_t> page = path == "/" ? 0 : ParseNumberedPath(path, "/p/", ".html");
  if (!host || !page || *page >= graph_.HostPages(*host) || (*page == 0 && path != "/")) {
    not_found_.fetch_add(1, std::memory_order_relaxed);
    return SetWebBody(response, 404, kNotFound, kHtml);
  }
  pages_.fetch_add(1, std::memory_order_relaxed);
  const std::vector<WebLink> links = graph_.Links(*host, *page);
  for (const WebLink& link : links) NoteHost(link.host, linked_, linked_hosts_);
  SetWebBody(response, 200, RenderWebPage(graph_, *host, *page, links, port_), kHtml);
}

// --- SimulatedWeb: a thin door onto Impl.

absl::StatusOr<std::unique_ptr<SimulatedWeb>> SimulatedWeb::Start(const WebOptions& options) {
  if (absl::Status valid = ValidateWebOptions(options); !valid.ok()) return valid;
  auto impl = std::make_unique<Impl>(options);
  if (absl::Status started = impl->Start(); !started.ok()) return started;
  return std::unique_ptr<SimulatedWeb>(new SimulatedWeb(std::move(impl)));
}

SimulatedWeb::SimulatedWeb(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SimulatedWeb::~SimulatedWeb() { Stop(); }

const WebGraph& SimulatedWeb::graph() const { return impl_->graph_; }
int SimulatedWeb::port() const { return impl_->port_; }
std::string SimulatedWeb::RootUrl(uint64_t host) const { return PageUrl(host, 0); }
std::string SimulatedWeb::PageUrl(uint64_t host, uint64_t page) const {
  return absl::StrCat("http://", WebGraph::HostAddress(host), ":", impl_->port_, WebPagePath(page));
}

uint64_t SimulatedWeb::TotalRequests() const { return impl_->requests_.load(); }
uint64_t SimulatedWeb::PagesServed() const { return impl_->pages_.load(); }
uint64_t SimulatedWeb::RobotsRequests() const { return impl_->robots_.load(); }
uint64_t SimulatedWeb::NotFound() const { return impl_->not_found_.load(); }
uint64_t SimulatedWeb::DistinctHostsRequested() const { return impl_->distinct_hosts_.load(); }
uint64_t SimulatedWeb::DistinctHostsLinked() const { return impl_->linked_hosts_.load(); }

std::optional<std::chrono::system_clock::time_point> SimulatedWeb::FirstRequestTime() const {
  const int64_t ns = impl_->first_request_ns_.load();
  if (ns == 0) return std::nullopt;
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::nanoseconds(ns)));
}

void SimulatedWeb::Stop() { impl_->Stop(); }

}  // namespace testsite
