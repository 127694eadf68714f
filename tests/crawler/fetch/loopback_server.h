// Test helpers for the fetch room: a real cpp-httplib server on 127.0.0.1
// (ephemeral port, its own thread pool) and a thread-safe collector of
// FetchResults. No mocks: every test talks HTTP over loopback to this server.
#ifndef TESTS_CRAWLER_FETCH_LOOPBACK_SERVER_H_
#define TESTS_CRAWLER_FETCH_LOOPBACK_SERVER_H_

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "crawler/fetch.h"

namespace crawler::testing {

// httplib listens with a backlog of 5: a burst of connects overflows it and
// the kernel drops SYNs, so clients retry after 1 s, 3 s... and a test of 64
// concurrent connections measures TCP retransmits. Linux lets a listening
// socket call listen() again to enlarge its backlog.
class BigBacklogServer : public httplib::Server {
 public:
  bool EnlargeBacklog(int backlog);
};

class LoopbackServer {
 public:
  // `threads`: httplib serves one connection per thread, so a test with N
  // concurrent keep-alive connections needs at least N.
  explicit LoopbackServer(size_t threads = 16);
  ~LoopbackServer();

  // Register handlers here before Start.
  BigBacklogServer& server() { return server_; }
  // Binds 127.0.0.1 on a free port and serves in a thread; returns once ready.
  void Start();
  std::string Url(std::string_view path) const;
  int port() const { return port_; }

  // Client ports seen across all requests: one per TCP connection.
  size_t DistinctClientPorts() const;
  size_t Requests() const;

  // For stalling handlers: blocks until Release() or `limit`, whichever first.
  void StallUntilReleased(std::chrono::milliseconds limit);
  void Release();

 private:
  BigBacklogServer server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  std::condition_variable released_cv_;
  bool released_ = false;
  std::multiset<int> client_ports_;
};

// Collects callback results from fetcher threads.
class ResultCollector {
 public:
  Fetcher::Callback Callback();
  // Waits until `count` results arrived (or `limit` passed); returns them.
  std::vector<FetchResult> WaitFor(size_t count, std::chrono::milliseconds limit);
  size_t Count() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable arrived_;
  std::vector<FetchResult> results_;
};

// Fetches one URL with a fresh Fetcher and returns its result (error
// "test: no result" if none came within `limit`).
FetchResult FetchOne(const FetchOptions& options, const std::string& url,
                     std::chrono::milliseconds limit = std::chrono::seconds(20));

// Test-sized defaults: short timeouts so a broken test fails fast.
FetchOptions TestOptions();

// gzip (RFC 1952) of `data` with zlib, for bodies served pre-encoded.
std::string Gzip(std::string_view data);

// A TCP socket listening on 127.0.0.1 at a free port (written to *port),
// for the raw servers of tests that need bytes httplib would not send.
int ListenOnLoopback(int* port);

}  // namespace crawler::testing

#endif  // TESTS_CRAWLER_FETCH_LOOPBACK_SERVER_H_
