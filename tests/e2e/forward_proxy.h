// ForwardProxy: a small HTTP forward proxy on 127.0.0.1 for the proxy tests.
// It takes absolute-form requests ("GET http://127.0.0.1:PORT/p HTTP/1.1"),
// notes each target and forwards it to its origin with cpp-httplib, passing
// back status, Content-Type, Location and body. Plain http only (no CONNECT).
//
//   ForwardProxy proxy;
//   RunProgram("crawl", {"--proxy", proxy.Url(), site->RootUrl(), ...});
//   EXPECT_EQ(proxy.Targets().size(), site->TotalRequests());
//
// Threading: Targets() is safe to call while requests are being served.
#ifndef TESTS_E2E_FORWARD_PROXY_H_
#define TESTS_E2E_FORWARD_PROXY_H_

#include <httplib.h>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace e2e {

class ForwardProxy {
 public:
  ForwardProxy();  // binds a free port and serves; returns once listening
  ~ForwardProxy();
  ForwardProxy(const ForwardProxy&) = delete;
  ForwardProxy& operator=(const ForwardProxy&) = delete;

  std::string Url() const;                   // "http://127.0.0.1:PORT"
  std::vector<std::string> Targets() const;  // absolute URLs asked, in order

 private:
  void Forward(const httplib::Request& request, httplib::Response& response);

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  std::vector<std::string> targets_;
};

}  // namespace e2e

#endif  // TESTS_E2E_FORWARD_PROXY_H_
