// A Transfer keeps the crawl's curl options from one request to the next
// (transfer.cc, Transfer::Prepare): every option still applies to every
// request, a request refused before it starts reads no earlier request's
// answer, and libcurl 7.88's retry counter, which only a reset clears, never
// fails a request.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "crawler/fetch.h"
#include "crawler/fetch/loopback_server.h"

namespace crawler::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// One slot on one fetcher thread: every request runs on the same easy handle.
FetchOptions OneHandleOptions() {
  FetchOptions options = TestOptions();
  options.threads = 1;
  options.max_transfers = 1;
  return options;
}

// Submits `urls` one after the other (each from the previous one's callback)
// and returns the results in order.
std::vector<FetchResult> FetchInTurn(const FetchOptions& options,
                                     const std::vector<std::string>& urls) {
  ResultCollector collector;
  Fetcher* self = nullptr;
  auto on_done = collector.Callback();
  auto fetcher = Fetcher::Create(options, [&](FetchResult&& r) {
    const uint64_t next = r.tag + 1;
    on_done(std::move(r));
    if (next < urls.size()) {
      EXPECT_TRUE(self->Submit({.url = urls[next], .tag = next}));
    }
  });
  EXPECT_TRUE(fetcher.ok()) << fetcher.status();
  if (!fetcher.ok()) return {};
  self = fetcher->get();
  EXPECT_TRUE(self->Submit({.url = urls[0], .tag = 0}));
  std::vector<FetchResult> results = collector.WaitFor(urls.size(), seconds(60));
  self->Shutdown(milliseconds(1000));
  return results;
}

TEST(FetchReuseTest, EveryOptionAppliesToEveryRequestOnOneHandle) {
  LoopbackServer server;
  std::mutex mu;
  std::vector<std::string> seen;  // per request: User-Agent, X-Crawl, Accept-Encoding
  server.server().Get("/p", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard lock(mu);
    seen.push_back(req.get_header_value("User-Agent") + "|" + req.get_header_value("X-Crawl") +
                   "|" + req.get_header_value("Accept-Encoding"));
    res.set_content("<p>" + req.get_param_value("n") + "</p>", "text/html");
  });
  server.Start();
  FetchOptions options = OneHandleOptions();
  options.user_agent = "crawl-reuse/1";
  options.headers = {"X-Crawl: yes"};
  std::vector<std::string> urls;
  for (int i = 0; i < 8; ++i) urls.push_back(server.Url("/p?n=" + std::to_string(i)));
  const std::vector<FetchResult> results = FetchInTurn(options, urls);
  ASSERT_EQ(results.size(), urls.size());
  for (size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].error, "");
    EXPECT_EQ(results[i].status, 200);
    EXPECT_EQ(results[i].final_url, urls[i]);
    EXPECT_EQ(results[i].body, "<p>" + std::to_string(i) + "</p>");
  }
  ASSERT_EQ(seen.size(), urls.size());
  const std::string first = seen[0];
  EXPECT_TRUE(first.starts_with("crawl-reuse/1|yes|")) << first;
  EXPECT_NE(first, "crawl-reuse/1|yes|");  // curl offered its decoders
  for (const std::string& s : seen) EXPECT_EQ(s, first);
  EXPECT_EQ(server.DistinctClientPorts(), 1u);  // one connection: the handle was reused
}

// A request refused before it starts, between two that ran on the handle,
// carries nothing of the one before (status, type, address): as after a reset.
TEST(FetchReuseTest, RefusedRequestReadsNoEarlierAnswer) {
  LoopbackServer server;
  server.server().Get("/p", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("<p>x</p>", "text/html");
  });
  server.Start();
  const std::vector<std::string> urls = {server.Url("/p"), "mailto:a@example.org",
                                         server.Url("/p")};
  const std::vector<FetchResult> results = FetchInTurn(OneHandleOptions(), urls);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, 200);
  EXPECT_EQ(results[1].error, kFetchScheme);
  EXPECT_EQ(results[1].status, 0);
  EXPECT_EQ(results[1].content_type, "");
  EXPECT_EQ(results[1].remote_ip, "");
  EXPECT_EQ(results[1].final_url, urls[1]);
  EXPECT_EQ(results[2].error, "");
  EXPECT_EQ(results[2].status, 200);
  EXPECT_EQ(results[2].content_type, "text/html");
}

// Answers the first request of each connection (keep-alive), then reads the
// next request on it and closes without a byte: curl, which reused the
// connection, retries the request on a new one. One connection at a time.
class OneAnswerPerConnectionServer {
 public:
  OneAnswerPerConnectionServer() {
    fd_ = ListenOnLoopback(&port_);
    thread_ = std::thread([this] { Serve(); });
  }
  ~OneAnswerPerConnectionServer() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::string Url(int n) const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/p" + std::to_string(n);
  }
  int dropped() const { return dropped_.load(); }

 private:
  static bool ReadRequestHead(int client) {
    std::string request;
    char buf[4096];
    while (request.find("\r\n\r\n") == std::string::npos) {
      const ssize_t n = ::read(client, buf, sizeof(buf));
      if (n <= 0) return false;
      request.append(buf, static_cast<size_t>(n));
    }
    return true;
  }

  void Serve() {
    static constexpr std::string_view kReply =
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 9\r\n\r\n<p>ok</p>";
    for (;;) {
      const int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      if (ReadRequestHead(client)) {
        [[maybe_unused]] const ssize_t sent =
            ::send(client, kReply.data(), kReply.size(), MSG_NOSIGNAL);
        if (ReadRequestHead(client)) dropped_.fetch_add(1);
      }
      ::close(client);
    }
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> dropped_{0};
  std::thread thread_;
};

// libcurl 7.88 counts a handle's retries on dead reused connections and only
// curl_easy_reset sets the count back (curl 8.17 resets it per request): on a
// handle kept without resets, the sixth such retry in its life fails its
// request with "Connection died". Every request here after the first is
// retried once.
TEST(FetchReuseTest, RetriesOnDeadConnectionsNeverAddUpAcrossRequests) {
  OneAnswerPerConnectionServer server;
  std::vector<std::string> urls;
  for (int i = 0; i < 12; ++i) urls.push_back(server.Url(i));
  const std::vector<FetchResult> results = FetchInTurn(OneHandleOptions(), urls);
  ASSERT_EQ(results.size(), urls.size());
  for (const FetchResult& r : results) {
    EXPECT_EQ(r.error, "") << r.url;
    EXPECT_EQ(r.status, 200) << r.url;
    EXPECT_EQ(r.body, "<p>ok</p>");
  }
  EXPECT_GE(server.dropped(), 11);  // the retries happened
}

}  // namespace
}  // namespace crawler::testing
