// Three `crawl` processes share one frontier in Redis (--frontier
// redis://127.0.0.1:PORT/NAME) and crawl one testsite as one: every page is
// fetched exactly once in total (the site's request counts), the three
// pages.jsonl files together hold each page once, and all three exit 0 when
// the shared queue is drained. redis-server comes from PATH (a missing one is
// a failure, not a skip) and listens on 127.0.0.1 only.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "e2e/binary_crawl.h"
#include "e2e/e2e_util.h"
#include "gtest/gtest.h"
#include "testsite/test_site.h"

namespace e2e {
namespace {

// A throwaway redis-server on 127.0.0.1 without persistence.
class LocalRedis {
 public:
  LocalRedis() : dir_(FreshDir("redis-frontier-redis")) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    socklen_t len = sizeof(addr);
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    close(fd);
    port_ = ntohs(addr.sin_port);
  }
  ~LocalRedis() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  // True once it accepts connections.
  bool Start() {
    const std::string port = std::to_string(port_);
    pid_ = fork();
    if (pid_ == 0) {
      execlp("redis-server", "redis-server", "--port", port.c_str(), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--dir", dir_.c_str(), "--loglevel", "warning",
             static_cast<char*>(nullptr));
      _exit(127);
    }
    for (int i = 0; i < 500; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return false;  // exited: not installed, or the port was taken
      }
      int fd = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      addr.sin_port = htons(static_cast<uint16_t>(port_));
      const bool up = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
      close(fd);
      if (up) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  int port() const { return port_; }

 private:
  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

TEST(RedisFrontierTest, ThreeProcessesCrawlOneSiteOnceInTotal) {
  LocalRedis redis;
  ASSERT_TRUE(redis.Start()) << "redis-server (from PATH) did not start: install the Debian "
                                "package redis-server (scripts/setup)";
  testsite::SiteOptions site_options;
  site_options.pages = 300;
  absl::StatusOr<std::unique_ptr<testsite::TestSite>> site =
      testsite::TestSite::Start(site_options);
  ASSERT_TRUE(site.ok()) << site.status();
  const std::string frontier = absl::StrCat("redis://127.0.0.1:", redis.port(), "/e2e");

  std::vector<BinaryCrawl> crawls(3);
  std::vector<std::thread> processes;
  for (int i = 0; i < 3; ++i) {
    processes.emplace_back([&, i] {
      crawls[i] = RunCrawlBinary(absl::StrCat("redis-frontier-", i), {(*site)->RootUrl()},
                                 {"--frontier", frontier, "--delay", "0"});
    });
  }
  for (std::thread& p : processes) p.join();

  std::map<std::string, int> fetched_by;  // page path -> how many processes logged it
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(crawls[i].run.exit_code, 0) << "process " << i << ": " << crawls[i].run.err;
    EXPECT_EQ(crawls[i].summary["stop_reason"], "drained") << "process " << i;
    for (const auto& [path, record] : crawls[i].by_path) ++fetched_by[path];
    std::printf("process %d logged %zu pages\n", i, crawls[i].pages.size());
  }
  size_t pages = 0;
  for (const std::string& url : (*site)->PageUrls()) {
    EXPECT_EQ((*site)->RequestCount(PathOf(url)), 1u) << url;
    EXPECT_EQ(fetched_by[PathOf(url)], 1) << url;
    ++pages;
  }
  EXPECT_EQ(pages, 300u);
  EXPECT_EQ(crawls[0].pages.size() + crawls[1].pages.size() + crawls[2].pages.size(),
            fetched_by.size());
}

}  // namespace
}  // namespace e2e
