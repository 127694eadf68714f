// Answers that are not HTTP get honest error kinds, not
// curl's misleading ones (a 1 MB header line was "other: Out of memory", a
// garbage status line "scheme"). The server is a raw socket on 127.0.0.1 that
// answers every connection with fixed bytes.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include "crawler/fetch.h"
#include "crawler/fetch/loopback_server.h"

namespace crawler::testing {
namespace {

// Accepts connections until destroyed; reads the request head, sends `reply`
// and closes.
class RawReplyServer {
 public:
  explicit RawReplyServer(std::string reply) : reply_(std::move(reply)) {
    fd_ = ListenOnLoopback(&port_);
    thread_ = std::thread([this] { Serve(); });
  }
  ~RawReplyServer() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/x"; }

 private:
  void Serve() {
    while (!stop_) {
      const int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      std::string request;
      char buf[4096];
      while (request.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = ::read(client, buf, sizeof(buf));
        if (n <= 0) break;
        request.append(buf, static_cast<size_t>(n));
      }
      size_t sent = 0;
      while (sent < reply_.size()) {
        const ssize_t n = ::send(client, reply_.data() + sent, reply_.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) break;
        sent += static_cast<size_t>(n);
      }
      ::close(client);
    }
  }

  const std::string reply_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST(FetchErrorKind, GarbageStatusLineIsABadResponse) {
  for (const char* reply : {"HTTP/1.7 200 OK\r\nContent-Length: 2\r\n\r\nok",
                            "garbage that is not http at all\r\n\r\nbody"}) {
    RawReplyServer server(reply);
    const FetchResult r = FetchOne(TestOptions(), server.Url());
    EXPECT_EQ(r.error, kFetchBadResponse) << reply;
  }
}

TEST(FetchErrorKind, OneMegabyteHeaderLineIsHeadersTooLarge) {
  RawReplyServer server("HTTP/1.1 200 OK\r\nX-Big: " + std::string(1 << 20, 'a') +
                        "\r\nContent-Length: 2\r\n\r\nok");
  const FetchResult r = FetchOne(TestOptions(), server.Url());
  EXPECT_EQ(r.error, kFetchHeadersTooLarge);
}

}  // namespace
}  // namespace crawler::testing
