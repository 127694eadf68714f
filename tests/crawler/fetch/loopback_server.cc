#include "crawler/fetch/loopback_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>
#include <stdexcept>

#include "gtest/gtest.h"
#include "support/gzip.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CRAWL_FETCH_TEST_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define CRAWL_FETCH_TEST_TSAN 1
#endif

#ifdef CRAWL_FETCH_TEST_TSAN
// Debian's libcpp-httplib is not built with TSan: its server threads share
// buffers under synchronization TSan cannot see, and the memcpy/memcmp
// interceptors then report races between two httplib threads. Only the test
// server is silenced; the fetcher's own code stays fully checked.
extern "C" const char* __tsan_default_suppressions() {
  return "called_from_lib:libcpp-httplib.so\nrace:libcpp-httplib.so\nmutex:libcpp-httplib.so\n";
}
#endif

namespace crawler::testing {

bool BigBacklogServer::EnlargeBacklog(int backlog) { return ::listen(svr_sock_, backlog) == 0; }

LoopbackServer::LoopbackServer(size_t threads) {
  server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_.set_keep_alive_max_count(100000);
  // Without it, a response written in two segments waits for the client's
  // delayed ACK (40 ms on Linux) and every keep-alive request looks slow.
  server_.set_tcp_nodelay(true);
  server_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response&) {
    std::lock_guard lock(mu_);
    client_ports_.insert(req.remote_port);
    return httplib::Server::HandlerResponse::Unhandled;
  });
}

LoopbackServer::~LoopbackServer() {
  Release();
  server_.stop();
  if (thread_.joinable()) thread_.join();
}

void LoopbackServer::Start() {
  port_ = server_.bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("cannot bind 127.0.0.1");
  if (!server_.EnlargeBacklog(1024)) throw std::runtime_error("cannot enlarge listen backlog");
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

std::string LoopbackServer::Url(std::string_view path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
}

size_t LoopbackServer::DistinctClientPorts() const {
  std::lock_guard lock(mu_);
  return std::set<int>(client_ports_.begin(), client_ports_.end()).size();
}

size_t LoopbackServer::Requests() const {
  std::lock_guard lock(mu_);
  return client_ports_.size();
}

void LoopbackServer::StallUntilReleased(std::chrono::milliseconds limit) {
  std::unique_lock lock(mu_);
  released_cv_.wait_for(lock, limit, [this] { return released_; });
}

void LoopbackServer::Release() {
  {
    std::lock_guard lock(mu_);
    released_ = true;
  }
  released_cv_.notify_all();
}

Fetcher::Callback ResultCollector::Callback() {
  return [this](FetchResult&& result) {
    {
      std::lock_guard lock(mu_);
      results_.push_back(std::move(result));
    }
    arrived_.notify_all();
  };
}

std::vector<FetchResult> ResultCollector::WaitFor(size_t count, std::chrono::milliseconds limit) {
  std::unique_lock lock(mu_);
  arrived_.wait_for(lock, limit, [&] { return results_.size() >= count; });
  return results_;
}

size_t ResultCollector::Count() const {
  std::lock_guard lock(mu_);
  return results_.size();
}

FetchResult FetchOne(const FetchOptions& options, const std::string& url,
                     std::chrono::milliseconds limit) {
  ResultCollector collector;
  auto fetcher = Fetcher::Create(options, collector.Callback());
  if (!fetcher.ok()) {
    FetchResult failed;
    failed.error = "test: " + std::string(fetcher.status().message());
    return failed;
  }
  (*fetcher)->Submit({.url = url, .tag = 7});
  std::vector<FetchResult> results = collector.WaitFor(1, limit);
  (*fetcher)->Shutdown(std::chrono::milliseconds(0));
  if (results.empty()) {
    FetchResult missing;
    missing.error = "test: no result";
    return missing;
  }
  return std::move(results.front());
}

FetchOptions TestOptions() {
  FetchOptions options;
  options.threads = 2;
  options.max_transfers = 16;
  options.connect_timeout_s = 5;
  options.total_timeout_s = 10;
  return options;
}

std::string Gzip(std::string_view data) { return test_support::Gzip(data); }

int ListenOnLoopback(int* port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), len), 0);
  EXPECT_EQ(::listen(fd, 8), 0);
  EXPECT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  *port = ntohs(addr.sin_port);
  return fd;
}

}  // namespace crawler::testing
