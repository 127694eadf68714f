#include "testsite/test_site.h"

#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "fault_injector.h"
#include "hostile_routes.h"
#include "page_renderer.h"
#include "raw_server.h"
#include "request_tracker.h"
#include "server_load.h"
#include "site_graph.h"
#include "site_paths.h"
#include "site_router.h"
#include "stop_signal.h"

namespace testsite {
namespace {

// cpp-httplib listens with a backlog of 5. A crawler opening 32 connections at
// once overflows that, and Linux then drops SYNs, which costs the client a 1 s
// retransmit. Raising the backlog on the bound socket (listen() again) avoids it.
constexpr int kListenBacklog = 1024;
// Requests per keep-alive connection before the server closes it; high so a
// crawler keeps its connections, as it would with a real web server.
constexpr size_t kKeepAliveMaxRequests = 100000;
constexpr auto kStartTimeout = std::chrono::seconds(10);

// cpp-httplib sends without MSG_NOSIGNAL, so a client that hangs up in the
// middle of a body (a crawler's body cap) raises SIGPIPE, whose default action
// kills the whole test program. SIGPIPE from send() goes to the sending thread;
// with it blocked there, send() just fails with EPIPE. The process-wide
// disposition is left alone.
void BlockSigpipeInThisThread() {
  sigset_t sigpipe;
  sigemptyset(&sigpipe);
  sigaddset(&sigpipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &sigpipe, nullptr);
}

// Exposes the listening socket, which httplib::Server keeps protected.
class ListeningServer : public httplib::Server {
 public:
  bool RaiseBacklog(int backlog) { return ::listen(svr_sock_, backlog) == 0; }
};

}  // namespace

// Owns the server and everything its handlers touch. TestSite's read-only
// methods use the public members directly; they are set before Start returns.
class TestSite::Impl {
 public:
  explicit Impl(const SiteOptions& options)
      : options_(options),
        graph_(options),
        changes_(options),
        epoch_(options.epoch),
        tracker_(options.keep_request_log) {}
  ~Impl() { Stop(); }

  absl::Status Start();
  void Stop();
  void Handle(const std::string& path, Handler handler);

  const SiteOptions options_;
  const SiteGraph graph_;
  const ChangeSet changes_;
  std::atomic<int> epoch_;
  RequestTracker tracker_;
  std::optional<FaultInjector> faults_;  // set by Start, before serving
  std::optional<ServerLoad> load_;       // with a rate limit or load latency
  int port_ = 0;
  std::string base_url_;      // "http://host:port"
  std::string raw_base_url_;  // the RawServer's, "" without one

 private:
  absl::Status Bind();
  absl::Status ListenRaw();
  void ServeRaw(int fd, const RawRequest& raw, RawServer::Ending* ending);
  void Dispatch(const httplib::Request& request, httplib::Response& response);
  // Rate limit and load latency: false when the request was refused (429).
  bool ApplyLoad(httplib::Response& response);
  std::shared_ptr<const Handler> FindRoute(const std::string& path) const;

  StopSignal stop_;
  // Built once the port is known (absolute links hold it).
  std::optional<HostileRoutes> hostile_;
  std::optional<PageRenderer> renderer_;
  std::unique_ptr<RawServer> raw_;  // only when a hostile case needs hand-made bytes
  std::optional<SiteRouter> router_;
  ListeningServer server_;
  std::thread listen_thread_;
  std::once_flag stop_once_;

  mutable std::mutex routes_mutex_;
  std::unordered_map<std::string, std::shared_ptr<const Handler>> routes_
      ABSL_GUARDED_BY(routes_mutex_);
};

absl::Status TestSite::Impl::Bind() {
  if (options_.port == 0) {
    port_ = server_.bind_to_any_port(options_.host);
  } else {
    port_ = server_.bind_to_port(options_.host, options_.port) ? options_.port : -1;
  }
  if (port_ <= 0) {
    return absl::UnavailableError(
        absl::StrCat("testsite: cannot listen on ", options_.host, ":", options_.port));
  }
  if (!server_.RaiseBacklog(kListenBacklog)) {
    return absl::InternalError("testsite: cannot raise the listen backlog");
  }
  return absl::OkStatus();
}

absl::Status TestSite::Impl::Start() {
  const auto threads = static_cast<size_t>(options_.threads);
  server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_.set_keep_alive_max_count(kKeepAliveMaxRequests);
  server_.set_keep_alive_timeout(options_.keep_alive_timeout_s);
  server_.set_tcp_nodelay(true);
  // cpp-httplib's default sets SO_REUSEPORT, which lets a second site bind the
  // same port and silently take half the connections. SO_REUSEADDR alone still
  // allows rebinding a port whose old connections linger in TIME_WAIT.
  server_.set_socket_options([](socket_t socket) {
    const int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  server_.set_pre_routing_handler(
      [this](const httplib::Request& request, httplib::Response& response) {
        Dispatch(request, response);
        return httplib::Server::HandlerResponse::Handled;
      });
  server_.set_logger([this](const httplib::Request& request, const httplib::Response& response) {
    tracker_.End(request, response);
  });
  if (absl::Status bound = Bind(); !bound.ok()) return bound;

  base_url_ = absl::StrCat("http://", options_.host, ":", port_);
  if (HostileRoutes::NeedsRawServer(options_)) {
    if (absl::Status raw = ListenRaw(); !raw.ok()) return raw;
  }
  hostile_.emplace(options_, base_url_, raw_base_url_, stop_);
  if (raw_ != nullptr) raw_->Start();  // after hostile_: the thread start orders them
  renderer_.emplace(options_, graph_, base_url_, hostile_->RootLinksHtml());
  faults_.emplace(options_, stop_);
  if (ServerLoad::Needed(options_)) load_.emplace(options_);
  router_.emplace(options_, graph_, *renderer_, *hostile_, *faults_, base_url_, stop_,
                  SiteRouter::Epochs{changes_, epoch_});
  listen_thread_ = std::thread([this] {
    BlockSigpipeInThisThread();  // the worker threads are created below and inherit it
    server_.listen_after_bind();
  });

  // Stop() is a no-op until the server runs, so do not hand it out earlier.
  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  while (!server_.is_running()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return absl::DeadlineExceededError("testsite: server did not start");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return absl::OkStatus();
}

void TestSite::Impl::Stop() {
  std::call_once(stop_once_, [this] {
    stop_.Notify();  // wakes stalled and delayed handlers first
    if (raw_ != nullptr) raw_->Stop();
    server_.stop();  // closes the listening socket; the pool then drains
    if (listen_thread_.joinable()) listen_thread_.join();
  });
}

absl::Status TestSite::Impl::ListenRaw() {
  raw_ = std::make_unique<RawServer>(options_.host, [this](int fd, const RawRequest& raw) {
    RawServer::Ending ending = RawServer::kClose;
    ServeRaw(fd, raw, &ending);
    return ending;
  });
  if (absl::Status bound = raw_->Listen(); !bound.ok()) return bound;
  raw_base_url_ = absl::StrCat("http://", options_.host, ":", raw_->port());
  return absl::OkStatus();
}

// Counts and logs the raw request like any other, through httplib's types.
void TestSite::Impl::ServeRaw(int fd, const RawRequest& raw, RawServer::Ending* ending) {
  httplib::Request request;
  request.method = raw.method;
  request.target = raw.target;
  request.path = raw.path;
  request.remote_port = raw.remote_port;
  request.set_header("User-Agent", raw.user_agent);
  const uint64_t seq = tracker_.Begin(request);
  httplib::Response response;
  *ending = hostile_->ServeRaw(fd, raw.path, &response.status);
  tracker_.Routed(seq, response.status);
  tracker_.End(request, response);
}

void TestSite::Impl::Dispatch(const httplib::Request& request, httplib::Response& response) {
  const uint64_t seq = tracker_.Begin(request);
  if (load_.has_value() && !ApplyLoad(response)) {
    tracker_.Routed(seq, response.status);
    return;
  }
  if (const std::shared_ptr<const Handler> handler = FindRoute(request.path)) {
    (*handler)(request, response);
    if (response.status == -1) response.status = 200;
  } else {
    router_->Serve(request, response);
  }
  tracker_.Routed(seq, response.status);
}

bool TestSite::Impl::ApplyLoad(httplib::Response& response) {
  const auto now = ServerLoad::Clock::now();
  if (!load_->Admit(now)) {
    response.status = 429;
    if (options_.rate_limit_retry_after >= 0) {
      response.set_header("Retry-After", std::to_string(options_.rate_limit_retry_after));
    }
    response.set_content("rate limit\n", "text/plain");
    return false;
  }
  const auto extra = std::chrono::round<std::chrono::milliseconds>(load_->ExtraLatency(now));
  if (extra.count() > 0) stop_.WaitFor(extra);
  return true;
}

std::shared_ptr<const Handler> TestSite::Impl::FindRoute(const std::string& path) const {
  std::lock_guard<std::mutex> lock(routes_mutex_);
  const auto it = routes_.find(path);
  return it == routes_.end() ? nullptr : it->second;
}

void TestSite::Impl::Handle(const std::string& path, Handler handler) {
  auto shared = std::make_shared<const Handler>(std::move(handler));
  std::lock_guard<std::mutex> lock(routes_mutex_);
  routes_[path] = std::move(shared);
}

// --- TestSite: a thin door onto Impl.

absl::StatusOr<std::unique_ptr<TestSite>> TestSite::Start(const SiteOptions& options) {
  if (absl::Status valid = ValidateSiteOptions(options); !valid.ok()) return valid;
  auto impl = std::make_unique<Impl>(options);
  if (absl::Status started = impl->Start(); !started.ok()) return started;
  return std::unique_ptr<TestSite>(new TestSite(std::move(impl)));
}

TestSite::TestSite(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TestSite::~TestSite() { Stop(); }

const SiteOptions& TestSite::options() const { return impl_->options_; }
int TestSite::port() const { return impl_->port_; }
std::string TestSite::BaseUrl() const { return impl_->base_url_; }
std::string TestSite::RawBaseUrl() const { return impl_->raw_base_url_; }
std::string TestSite::RootUrl() const { return PageUrl(0); }
std::string TestSite::PageUrl(uint64_t i) const { return impl_->base_url_ + PagePath(i); }

std::vector<std::string> TestSite::PageUrls() const { return PageUrlsWithinDepth(-1); }

std::vector<std::string> TestSite::PageUrlsWithinDepth(int depth) const {
  std::vector<std::string> urls;
  for (uint64_t page : impl_->graph_.PagesWithinDepth(depth)) urls.push_back(PageUrl(page));
  return urls;
}

std::vector<std::string> TestSite::NonHtmlUrls() const {
  std::vector<std::string> urls;
  if (!impl_->options_.non_html) return urls;
  for (const Link& file : impl_->graph_.LinkedFiles()) {
    urls.push_back(impl_->base_url_ + LinkPath(file));
  }
  return urls;
}

uint64_t TestSite::RequestCount(std::string_view path_or_url) const {
  std::string_view path = path_or_url;
  if (path.starts_with(impl_->base_url_)) {
    path.remove_prefix(impl_->base_url_.size());
    if (path.empty()) path = "/";
  }
  return impl_->tracker_.Count(path);
}
uint64_t TestSite::RequestCountWithPrefix(std::string_view prefix) const {
  return impl_->tracker_.CountWithPrefix(prefix);
}
uint64_t TestSite::TotalRequests() const { return impl_->tracker_.Total(); }
std::map<std::string, uint64_t> TestSite::RequestCounts() const { return impl_->tracker_.Counts(); }
std::vector<RequestRecord> TestSite::RequestLog() const { return impl_->tracker_.Log(); }
uint64_t TestSite::FailuresInjected(std::string_view path_or_url) const {
  std::string_view path = path_or_url;
  if (path.starts_with(impl_->base_url_)) {
    path.remove_prefix(impl_->base_url_.size());
    if (path.empty()) path = "/";
  }
  const std::optional<uint64_t> page = path == "/" ? 0 : ParseNumberedPath(path, "/p/", ".html");
  if (!page || *page >= impl_->graph_.pages() || (*page == 0 && path != "/")) return 0;
  return impl_->faults_->FailuresOf(*page);
}
FaultCounts TestSite::InjectedFaults() const { return impl_->faults_->Counts(); }
int TestSite::MaxConcurrentRequests() const { return impl_->tracker_.MaxInFlight(); }
void TestSite::ResetCounts() { impl_->tracker_.Reset(); }

void TestSite::Handle(const std::string& path, Handler handler) {
  impl_->Handle(path, std::move(handler));
}

void TestSite::SetEpoch(int epoch) { impl_->epoch_.store(epoch); }
int TestSite::epoch() const { return impl_->epoch_.load(); }
const ChangeSet& TestSite::changes() const { return impl_->changes_; }

void TestSite::Stop() { impl_->Stop(); }

}  // namespace testsite

#if defined(__SANITIZE_THREAD__)
// Debian's libcpp-httplib is not built with TSan: its worker threads share
// buffers under synchronization TSan cannot see, and the memcpy/memcmp
// interceptors then report races between two httplib threads. Only that
// library is silenced (races, and its mutexes locked inside the library and
// unlocked in inlined header code); our code stays fully checked. Defined here, in the
// object every user of testsite links, so the runtime finds it.
extern "C" const char* __tsan_default_suppressions() {
  return "called_from_lib:libcpp-httplib.so\nrace:libcpp-httplib.so\nmutex:libcpp-httplib.so\n";
}

// httplib::Client::stop() is inlined into the caller and unlocks a mutex that
// the uninstrumented library locked, which TSan reports as "unlock of an
// unlocked mutex" with no library frame to suppress. In programs that link
// testsite, mutex-misuse reports are off; race and deadlock reports stay on.
extern "C" const char* __tsan_default_options() { return "report_mutex_bugs=0"; }
#endif
