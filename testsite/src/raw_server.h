// RawServer: a bare TCP listener for the responses cpp-httplib cannot send on
// purpose: a header block cut in the middle, a reset (RST) instead of a close,
// a body whose encoding the server made up. It reads one request head per
// connection, hands the socket to the handler and closes it.
//
//   RawServer raw("127.0.0.1", [](int fd, const RawRequest& request) {
//     SendAll(fd, "HTTP/1.1 200 OK\r\nContent-Ty");
//     return RawServer::kReset;  // the peer gets an RST, not a FIN
//   });
//   if (absl::Status s = raw.Listen(); !s.ok()) return s;
//   raw.Start();
//   ... http://127.0.0.1:<raw.port()>/anything
//   raw.Stop();
//
// Threading: Start and Stop from the owner's thread; the handler runs on one
// thread per connection, concurrently with itself. Stop shuts every open
// connection down and joins those threads.
#ifndef TESTSITE_SRC_RAW_SERVER_H_
#define TESTSITE_SRC_RAW_SERVER_H_

#include <atomic>
#include <functional>
#include <list>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"

namespace testsite {

struct RawRequest {
  std::string method;  // "GET"
  std::string target;  // "/reset/headers?x"
  std::string path;    // target without the query
  std::string user_agent;
  int remote_port = -1;
};

// Writes all of `bytes` (MSG_NOSIGNAL); false once the peer is gone.
bool SendAll(int fd, std::string_view bytes);

class RawServer {
 public:
  // How the server ends the connection once the handler returns.
  enum Ending { kClose, kReset };
  // Writes to `fd`; never closes it.
  using Handler = std::function<Ending(int fd, const RawRequest& request)>;

  RawServer(std::string host, Handler handler);
  ~RawServer();
  RawServer(const RawServer&) = delete;
  RawServer& operator=(const RawServer&) = delete;

  // Binds host on an ephemeral port; port() is known from then on.
  absl::Status Listen();
  // Starts accepting on a thread of its own (whatever the caller wrote before
  // is visible to the handler). After a successful Listen only.
  void Start();
  int port() const { return port_; }
  // Idempotent.
  void Stop();

 private:
  void AcceptLoop();
  void Serve(int fd, int remote_port);

  const std::string host_;
  const Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread accept_thread_;
  std::mutex mu_;
  std::list<std::thread> connections_ ABSL_GUARDED_BY(mu_);
  std::set<int> open_fds_ ABSL_GUARDED_BY(mu_);
};

}  // namespace testsite

#endif  // TESTSITE_SRC_RAW_SERVER_H_
