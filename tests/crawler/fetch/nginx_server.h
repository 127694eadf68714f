// NginxServer: a real nginx (Debian's, installed by scripts/setup) started by
// a test on 127.0.0.1, serving static files over TLS with HTTP/2 offered by
// ALPN. cpp-httplib speaks only HTTP/1.1, so this is how the fetch room proves
// it negotiates HTTP/2 with a server that offers it.
//
//   NginxServer nginx;
//   nginx.AddFile("a.html", "<html>...");
//   ASSERT_TRUE(nginx.Start().ok());
//   Fetch(nginx.Url("/a.html"));            // https://127.0.0.1:<port>/a.html
//   nginx.AccessLog();                      // "HTTP/2.0 /a.html 1" per request
//
// nginx runs in the foreground (daemon off, master_process off) as the test's
// user, with every path it writes under a fresh temporary directory, and is
// stopped (SIGTERM, then SIGKILL) by the destructor.
//
// Threading: use from the test's thread only.
#ifndef TESTS_CRAWLER_FETCH_NGINX_SERVER_H_
#define TESTS_CRAWLER_FETCH_NGINX_SERVER_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace crawler::testing {

struct NginxOptions {
  bool http2 = true;  // "listen ... ssl http2"
  bool gzip = false;  // gzip text/html responses when the client accepts it
};

class NginxServer {
 public:
  explicit NginxServer(NginxOptions options = {});
  ~NginxServer();
  NginxServer(const NginxServer&) = delete;
  NginxServer& operator=(const NginxServer&) = delete;

  // Writes `body` to the served directory as `name` (before or after Start).
  void AddFile(const std::string& name, const std::string& body);

  // Picks a free port, writes nginx.conf, starts nginx and waits (at most
  // 10 s) until it accepts connections. An error says why, with nginx's log.
  absl::Status Start();

  std::string Url(const std::string& path) const;
  int port() const { return port_; }
  // The certificate nginx serves (self-signed for 127.0.0.1): the CA to trust.
  static std::string CertFile();

  // One line per request, in order: "<protocol> <request_uri> <connection>",
  // e.g. "HTTP/2.0 /a.html 3" (nginx's $server_protocol, $request_uri and its
  // connection serial number). nginx writes the log line when the response
  // is done, so read it after the client saw its responses.
  std::vector<std::string> AccessLog() const;

 private:
  std::string ConfigText() const;
  std::string ErrorLog() const;

  const NginxOptions options_;
  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace crawler::testing

#endif  // TESTS_CRAWLER_FETCH_NGINX_SERVER_H_
