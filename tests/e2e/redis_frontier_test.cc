// Three `crawl` processes share one frontier in Redis (--frontier
// redis://127.0.0.1:PORT/NAME) and crawl one testsite as one: every page is
// fetched exactly once in total (the site's request counts), the three
// pages.jsonl files together hold each page once, and all three exit 0 when
// the shared queue is drained; with --delay, each process starts the host's
// requests at least the delay apart and requests of different processes
// reach the site at least the delay apart (the test says why it cannot be
// "any two requests at the site"); and when
// the one holding the host's lease is killed with SIGKILL mid-crawl, the
// other two finish the site (its host and URL leases expire and come back)
// and nothing is lost. redis-server comes from PATH (a missing one is a
// failure, not a skip) and listens on 127.0.0.1 only.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "e2e/binary_crawl.h"
#include "e2e/crawl_child.h"
#include "e2e/e2e_util.h"
#include "gtest/gtest.h"
#include "redis_fixture/redis_cluster.h"
#include "testsite/test_site.h"

namespace e2e {
namespace {

// A throwaway redis-server on 127.0.0.1 without persistence; `with_module`:
// with the crawlsieve module loaded, so pushes go through CRAWLSIEVE.PUSH.
class LocalRedis {
 public:
  explicit LocalRedis(bool with_module = false)
      : dir_(FreshDir("redis-frontier-redis")), port_(FreePort()), with_module_(with_module) {}
  ~LocalRedis() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  // True once it answers. FreePort's port is free only when asked: under a
  // parallel ctest another test's server may take it first, and then answer
  // for ours while ours fails to bind; so only our own process (INFO's
  // process_id) counts, and a server that exited is tried on a fresh port.
  bool Start() {
    for (int attempt = 0; attempt < 5; ++attempt) {
      if (StartOnce()) return true;
      if (pid_ > 0) return false;  // running but silent: give up
      port_ = FreePort();
    }
    return false;
  }
  int port() const { return port_; }

  // GET key over RESP on a fresh connection; "" for nil or an error.
  std::string Get(const std::string& key) const {
    return BulkReply(absl::StrCat("*2\r\n$3\r\nGET\r\n$", key.size(), "\r\n", key, "\r\n"));
  }
  // Calls of a command since the start, from INFO commandstats (0 if none).
  int CommandCalls(const std::string& command) const {
    const std::string info = BulkReply("*2\r\n$4\r\nINFO\r\n$12\r\ncommandstats\r\n");
    const std::string field = absl::StrCat("cmdstat_", command, ":calls=");
    const size_t at = info.find(field);
    if (at == std::string::npos) return 0;
    return std::atoi(info.c_str() + at + field.size());
  }

  // SET key value over RESP on a fresh connection (the test reads it back).
  void Set(const std::string& key, const std::string& value) const {
    BulkReply(absl::StrCat("*3\r\n$3\r\nSET\r\n$", key.size(), "\r\n", key, "\r\n$", value.size(),
                           "\r\n", value, "\r\n"));
  }

  // HGET key field over RESP on a fresh connection; "" for nil or an error.
  std::string Hget(const std::string& key, const std::string& field) const {
    return BulkReply(absl::StrCat("*3\r\n$4\r\nHGET\r\n$", key.size(), "\r\n", key, "\r\n$",
                                  field.size(), "\r\n", field, "\r\n"));
  }

 private:
  static int FreePort() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    socklen_t len = sizeof(addr);
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    close(fd);
    return ntohs(addr.sin_port);
  }

  // One launch on port_: true once our process answers; false with pid_ -1
  // if it exited (not installed, or the port was taken).
  bool StartOnce() {
    // argv and the environment are built before fork: the child of a
    // threaded test only calls async-signal-safe functions before exec.
    std::vector<std::string> args = {"redis-server",
                                     "--port",
                                     std::to_string(port_),
                                     "--bind",
                                     "127.0.0.1",
                                     "--save",
                                     "",
                                     "--appendonly",
                                     "no",
                                     "--dir",
                                     dir_,
                                     "--loglevel",
                                     "warning"};
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
#ifdef CRAWL_REDIS_MODULE
    if (with_module_) {
      args.insert(args.end(), {"--loadmodule", CRAWL_REDIS_MODULE});
      // An ASan-built module needs the ASan runtime loaded first.
      if (CRAWL_REDIS_MODULE_PRELOAD[0] != '\0') {
        env.push_back(absl::StrCat("LD_PRELOAD=", CRAWL_REDIS_MODULE_PRELOAD));
      }
    }
#endif
    std::vector<char*> argv, envp;
    for (std::string& a : args) argv.push_back(a.data());
    for (std::string& e : env) envp.push_back(e.data());
    argv.push_back(nullptr);
    envp.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with the test, even one a sanitizer ended
      execvpe("redis-server", argv.data(), envp.data());
      _exit(127);
    }
    const std::string ours = absl::StrCat("process_id:", pid_, "\r\n");
    for (int i = 0; i < 500; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      if (BulkReply("*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n").find(ours) != std::string::npos) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  // Sends one RESP request on a fresh connection and reads a bulk-string
  // reply; "" for nil, an error or no server.
  std::string BulkReply(const std::string& request) const {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port_));
    timeval timeout{1, 0};  // a port taken by a server that is not Redis may never answer
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    std::string reply;
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
      (void)!write(fd, request.data(), request.size());
      char buffer[4096];
      // "$N\r\n<value>\r\n" or "$-1\r\n": read until the value's end.
      for (ssize_t n; (n = read(fd, buffer, sizeof(buffer))) > 0;) {
        reply.append(buffer, static_cast<size_t>(n));
        const size_t header = reply.find("\r\n");
        if (header == std::string::npos) continue;
        if (reply[0] != '$' || reply.compare(0, 3, "$-1") == 0) {
          reply.clear();
          break;
        }
        const size_t length = std::stoul(reply.substr(1, header - 1));
        if (reply.size() >= header + 2 + length) {
          reply = reply.substr(header + 2, length);
          break;
        }
      }
    }
    close(fd);
    return reply;
  }

  std::string dir_;
  int port_ = 0;
  bool with_module_ = false;
  pid_t pid_ = -1;
};

// The e2e fleet crawls run on both push paths: the parameter is whether the
// server has the crawlsieve module (pushes through CRAWLSIEVE.PUSH) or not
// (the Lua script); each checks at the end which path the pushes took.
class RedisFleetTest : public testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(redis_.Start()) << "redis-server (from PATH) did not start: install the Debian "
                                   "package redis-server (scripts/setup)";
  }
  void TearDown() override {
    if (GetParam()) {
      EXPECT_GT(redis_.CommandCalls("crawlsieve.push"), 0) << "the module took no push";
    } else {
      EXPECT_EQ(redis_.CommandCalls("crawlsieve.push"), 0);
      EXPECT_GT(redis_.CommandCalls("evalsha"), 0);
    }
  }
  LocalRedis redis_{GetParam()};
};

std::string PushPathName(const testing::TestParamInfo<bool>& info) {
  return info.param ? "Module" : "Lua";
}

TEST_P(RedisFleetTest, ThreeProcessesCrawlOneSiteOnceInTotal) {
  LocalRedis& redis = redis_;
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

// Three testsites on three loopback addresses (127.0.0.1-3), so the fleet's
// work spreads over hosts (one process holds a host at a time).
std::vector<std::unique_ptr<testsite::TestSite>> StartThreeHosts(uint64_t pages) {
  std::vector<std::unique_ptr<testsite::TestSite>> sites;
  for (int i = 1; i <= 3; ++i) {
    testsite::SiteOptions options;
    options.pages = pages;
    options.links_per_page = 8;
    options.host = absl::StrCat("127.0.0.", i);
    absl::StatusOr<std::unique_ptr<testsite::TestSite>> site = testsite::TestSite::Start(options);
    EXPECT_TRUE(site.ok()) << site.status();
    if (site.ok()) sites.push_back(*std::move(site));
  }
  return sites;
}

// Three processes given the three sites' roots as seeds and `extra` flags.
std::vector<BinaryCrawl> RunThreeCrawls(
    const std::string& name, const std::string& frontier,
    const std::vector<std::unique_ptr<testsite::TestSite>>& sites, std::vector<std::string> extra) {
  std::vector<std::string> seeds;
  for (const auto& site : sites) seeds.push_back(site->RootUrl());
  extra.insert(extra.end(), {"--frontier", frontier, "--delay", "0"});
  std::vector<BinaryCrawl> crawls(3);
  std::vector<std::thread> processes;
  for (int i = 0; i < 3; ++i) {
    processes.emplace_back(
        [&, i] { crawls[i] = RunCrawlBinary(absl::StrCat(name, "-", i), seeds, extra); });
  }
  for (std::thread& p : processes) p.join();
  return crawls;
}

// --max-depth across the fleet: the depth travels with each URL in the
// frontier (its payload), so a link found by one process and fetched by
// another keeps its depth. Every page within the depth is fetched exactly
// once in total, no page beyond it at all.
TEST_P(RedisFleetTest, MaxDepthHoldsAcrossProcesses) {
  const auto sites = StartThreeHosts(120);
  ASSERT_EQ(sites.size(), 3u);
  const std::string frontier = absl::StrCat("redis://127.0.0.1:", redis_.port(), "/e2e-depth");
  const std::vector<BinaryCrawl> crawls =
      RunThreeCrawls("redis-depth", frontier, sites, {"--max-depth", "2"});
  std::map<std::string, int> logged;  // URL -> records across the three processes
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(crawls[i].run.exit_code, 0) << "process " << i << ": " << crawls[i].run.err;
    for (const nlohmann::json& page : crawls[i].pages) {
      ++logged[page["url"].get<std::string>()];
      EXPECT_LE(page["depth"].get<int>(), 2) << page["url"];
    }
  }
  size_t within_total = 0;
  for (const auto& site : sites) {
    const std::vector<std::string> within = site->PageUrlsWithinDepth(2);
    ASSERT_LT(within.size(), 120u);  // the limit must actually cut something
    for (const std::string& url : within) {
      EXPECT_EQ(site->RequestCount(PathOf(url)), 1u) << url;
      EXPECT_EQ(logged[url], 1) << url;
    }
    EXPECT_EQ(site->TotalRequests(), within.size()) << site->RootUrl();  // nothing deeper
    within_total += within.size();
  }
  EXPECT_EQ(logged.size(), within_total);
}

// --max-pages across the fleet: the three processes together fetch exactly
// N pages (NAME:pages counts the pages handed out, as one process counts
// them), all exit 0, and whoever ran into the limit says so.
TEST_P(RedisFleetTest, MaxPagesHoldsAcrossProcesses) {
  const auto sites = StartThreeHosts(100);
  ASSERT_EQ(sites.size(), 3u);
  const std::string frontier = absl::StrCat("redis://127.0.0.1:", redis_.port(), "/e2e-pages");
  const std::vector<BinaryCrawl> crawls =
      RunThreeCrawls("redis-pages", frontier, sites, {"--max-pages", "40"});
  size_t logged = 0;
  int stopped_by_limit = 0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(crawls[i].run.exit_code, 0) << "process " << i << ": " << crawls[i].run.err;
    logged += crawls[i].pages.size();
    stopped_by_limit += crawls[i].summary["stop_reason"] == "max-pages";
    std::printf("process %d logged %zu pages\n", i, crawls[i].pages.size());
  }
  size_t requests = 0;
  for (const auto& site : sites) requests += site->TotalRequests();
  EXPECT_EQ(requests, 40u);
  EXPECT_EQ(logged, 40u);
  EXPECT_GE(stopped_by_limit, 1);
  EXPECT_EQ(redis_.Get("e2e-pages:pages"), "40");
}

// One request of the delay test: which process made it (its User-Agent),
// when the site logged it (request line and headers parsed) and when that
// process started the transfer (pages.jsonl fetched_at: the system clock at
// millisecond resolution, mapped onto the steady clock).
struct TimedRequest {
  int process = -1;
  std::string path;
  std::chrono::steady_clock::time_point at_site;
  std::optional<std::chrono::steady_clock::time_point> at_crawler;
};

double Ms(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

// The site's request log joined with the crawls' pages.jsonl, by site time.
std::vector<TimedRequest> TimedRequests(const testsite::TestSite& site,
                                        const std::vector<BinaryCrawl>& crawls,
                                        const std::string& agent_prefix) {
  std::vector<TimedRequest> requests;
  for (const testsite::RequestRecord& r : site.RequestLog()) {
    TimedRequest t;
    t.path = r.path;
    t.at_site = r.start_time;
    if (r.user_agent.rfind(agent_prefix, 0) == 0) {
      t.process = std::stoi(r.user_agent.substr(agent_prefix.size()));
    }
    if (t.process >= 0 && t.process < static_cast<int>(crawls.size())) {
      auto page = crawls[static_cast<size_t>(t.process)].by_path.find(r.path);
      if (page != crawls[static_cast<size_t>(t.process)].by_path.end()) {
        t.at_crawler = FetchStart(page->second);
      }
    }
    requests.push_back(std::move(t));
  }
  std::sort(requests.begin(), requests.end(),
            [](const TimedRequest& a, const TimedRequest& b) { return a.at_site < b.at_site; });
  return requests;
}

std::string Table(const std::vector<TimedRequest>& requests) {
  std::string out;
  if (requests.empty()) return out;
  const auto origin = requests.front().at_site;
  for (size_t i = 0; i < requests.size(); ++i) {
    const TimedRequest& r = requests[i];
    absl::StrAppendFormat(&out, "  site %+8.1f ms", Ms(r.at_site - origin));
    if (i > 0)
      absl::StrAppendFormat(&out, " (gap %6.1f)", Ms(r.at_site - requests[i - 1].at_site));
    else
      out += "             ";
    absl::StrAppendFormat(&out, "  process %d  %-12s", r.process, r.path);
    if (r.at_crawler) {
      absl::StrAppendFormat(&out, "  crawler %+8.1f ms  site-crawler %6.1f ms",
                            Ms(*r.at_crawler - origin), Ms(r.at_site - *r.at_crawler));
    }
    out += "\n";
  }
  return out;
}

// Whether `site` logs a request whose User-Agent starts with `user_agent`
// within 60 s (polled).
bool SiteSawAgent(const testsite::TestSite& site, const std::string& user_agent) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    for (const testsite::RequestRecord& r : site.RequestLog()) {
      if (r.user_agent.rfind(user_agent, 0) == 0) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

// Host leases make one process at a time fetch a host, so --delay holds for
// the fleet. --max-pages is the fleet's count, each process stopping at its
// own flag: 4, 8 and 20. Started in that order, each once the one before it
// holds the host, they hand the host on at 4 and 8 pages fleet-wide: it
// passes from one to the next twice, and each page is fetched once.
// The site's gaps between request starts are not the crawlers' own: a
// request reaches the site after its set-up (the first of a process, on a
// new connection, took 50-490 ms under TSan on a loaded machine), so the gap
// to the next request of that process shrinks by as much. What is asserted:
//  1. each crawler handed the host's URLs to its fetcher at least the delay
//     apart (summary.json min_delay_ms: exact, the clock reading the delay
//     was checked against);
//  2. between processes, at the site, exactly: a process gives the host back
//     only after the response to its last request came (so after the site
//     logged that request), and nobody takes it for the delay after that:
//     any two requests of different processes start at least the delay
//     apart (less 1 ms: the scripts use Redis's clock in whole ms);
//  3. the site never handled two requests at once (10 ms handlers);
//  4. within a process, at the site: a gap is at least the delay less the
//     earlier request's set-up time as measured (transfer start in
//     pages.jsonl, truncated to ms, so never under-measured, to the site's
//     log) and less kHandOff, the
//     unseen hand-over from the crawler's scheduler to its fetch thread (up
//     to ~30 ms seen under TSan). A broken delay gives gaps of ~1 ms.
// A frontier written by a build of another queue format (v3: one list
// element per URL) is refused at start, naming the key and the version
// found, with crawl's exit code for bad state (2, as a checkpoint of another
// version); nothing is fetched and the frontier is left as it was.
TEST(RedisFrontierTest, AFrontierOfAnOlderFormatIsRefusedWithExitTwo) {
  LocalRedis redis(/*with_module=*/false);
  ASSERT_TRUE(redis.Start());
  const std::string old_meta = "v3 hash=1 seed=1 layout=blocked m=95850496 k=6 shard_bits=1";
  redis.Set("old:meta", old_meta);
  BinaryCrawl crawl =
      RunCrawlBinary("redis-old-format", {"http://127.0.0.1:9/"},
                     {"--frontier", absl::StrCat("redis://127.0.0.1:", redis.port(), "/old")});
  EXPECT_EQ(crawl.run.exit_code, 2) << crawl.run.err;
  EXPECT_NE(crawl.run.err.find("key old:meta says format v3"), std::string::npos) << crawl.run.err;
  EXPECT_NE(crawl.run.err.find("writes v4"), std::string::npos) << crawl.run.err;
  EXPECT_TRUE(crawl.pages.empty());
  EXPECT_EQ(redis.Get("old:meta"), old_meta);
}

// A frontier of packed host queues (created where the crawlsieve module
// was loaded) on a server without the module is refused at start, naming
// the key and the module, with exit 2; nothing is fetched or written.
TEST(RedisFrontierTest, APackedFrontierOnAServerWithoutTheModuleIsRefusedWithExitTwo) {
  LocalRedis redis(/*with_module=*/false);
  ASSERT_TRUE(redis.Start());
  const std::string meta =
      "v4 hash=1 seed=1 layout=blocked m=95850496 k=6 shard_bits=1 queue=deflate";
  redis.Set("packed:meta", meta);
  BinaryCrawl crawl =
      RunCrawlBinary("redis-packed-no-module", {"http://127.0.0.1:9/"},
                     {"--frontier", absl::StrCat("redis://127.0.0.1:", redis.port(), "/packed")});
  EXPECT_EQ(crawl.run.exit_code, 2) << crawl.run.err;
  EXPECT_NE(crawl.run.err.find("key packed:meta says its host queues hold packed batches"),
            std::string::npos)
      << crawl.run.err;
  EXPECT_NE(crawl.run.err.find("crawlsieve module"), std::string::npos) << crawl.run.err;
  EXPECT_TRUE(crawl.pages.empty());
  EXPECT_EQ(redis.Get("packed:meta"), meta);
}

// Three processes with --delay 200ms and --per-host 1 on one host, through
// `frontier`; their --max-pages (4, 8, 20) make the host change hands twice.
// Checks 1.-4. of the comment above.
void ExpectThreeProcessesKeepTheDelay(const std::string& frontier, const std::string& tag) {
  testsite::SiteOptions site_options;
  site_options.pages = 12;
  site_options.latency_ms = 10;  // a window in which a second request would overlap
  absl::StatusOr<std::unique_ptr<testsite::TestSite>> site =
      testsite::TestSite::Start(site_options);
  ASSERT_TRUE(site.ok()) << site.status();
  const std::string agent = absl::StrCat("crawl-", tag, "/");
  constexpr auto kDelay = std::chrono::milliseconds(200);
  constexpr auto kRedisClock = std::chrono::milliseconds(1);
  constexpr auto kHandOff = std::chrono::milliseconds(50);
  std::vector<BinaryCrawl> crawls(3);
  std::vector<std::thread> processes;
  const char* const max_pages[] = {"4", "8", "20"};
  for (int i = 0; i < 3; ++i) {
    processes.emplace_back([&, i] {
      crawls[i] =
          RunCrawlBinary(absl::StrCat(tag, "-", i), {(*site)->RootUrl()},
                         {"--frontier", frontier, "--delay", "200ms", "--per-host", "1",
                          "--max-pages", max_pages[i], "--user-agent", absl::StrCat(agent, i)});
    });
    // The next one starts once this one fetches: it then waits for the host.
    if (i < 2) {
      EXPECT_TRUE(SiteSawAgent(**site, absl::StrCat(agent, i)))
          << "process " << i << " never fetched";
    }
  }
  for (std::thread& p : processes) p.join();
  const std::string authority = (*site)->RootUrl().substr(0, (*site)->RootUrl().find('/', 8));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(crawls[i].run.exit_code, 0) << "process " << i << ": " << crawls[i].run.err;
    EXPECT_GE(crawls[i].pages.size(), 1u) << "process " << i << " never got the host";
    if (crawls[i].pages.size() < 2) continue;
    const nlohmann::json& host = crawls[i].summary["hosts"][authority];
    ASSERT_TRUE(host.is_object()) << "process " << i << ": " << crawls[i].summary.dump();
    EXPECT_GE(host["min_delay_ms"].get<double>(), 200.0) << "process " << i;  // 1.
    std::printf("process %d: %zu pages, its own closest starts %.1f ms apart\n", i,
                crawls[i].pages.size(), host["min_delay_ms"].get<double>());
  }
  for (const std::string& url : (*site)->PageUrls()) {
    EXPECT_EQ((*site)->RequestCount(PathOf(url)), 1u) << url;
  }
  const std::vector<TimedRequest> requests = TimedRequests(**site, crawls, agent);
  ASSERT_EQ(requests.size(), 12u);
  const std::string table = Table(requests);
  std::printf("%s", table.c_str());
  EXPECT_EQ((*site)->MaxConcurrentRequests(), 1) << table;  // 3.
  auto closest_between = std::chrono::steady_clock::duration::max();
  auto closest_within = closest_between;
  for (size_t j = 1; j < requests.size(); ++j) {
    for (size_t i = 0; i < j; ++i) {
      const TimedRequest &a = requests[i], &b = requests[j];
      EXPECT_NE(a.process, -1) << a.path << " came with another User-Agent\n" << table;
      if (a.process != b.process) {  // 2.
        closest_between = std::min(closest_between, b.at_site - a.at_site);
        EXPECT_GE(b.at_site - a.at_site, kDelay - kRedisClock)
            << a.path << " (process " << a.process << ") then " << b.path << " (process "
            << b.process << ")\n"
            << table;
      }
    }
    const TimedRequest &a = requests[j - 1], &b = requests[j];
    if (a.process != b.process) continue;
    closest_within = std::min(closest_within, b.at_site - a.at_site);
    ASSERT_TRUE(a.at_crawler.has_value()) << a.path << " is not in its pages.jsonl\n" << table;
    const auto set_up =
        std::max(std::chrono::steady_clock::duration::zero(), a.at_site - *a.at_crawler);
    EXPECT_GE(b.at_site - a.at_site, kDelay - kHandOff - set_up)  // 4.
        << a.path << " then " << b.path << " (process " << a.process << ")\n"
        << table;
  }
  std::printf("closest starts at the site: %.1f ms between processes, %.1f ms within one\n",
              Ms(closest_between), Ms(closest_within));
}

TEST(RedisFrontierTest, ThreeProcessesKeepTheDelayOfOneHostBetweenThem) {
  LocalRedis redis;
  ASSERT_TRUE(redis.Start()) << "redis-server (from PATH) did not start";
  ExpectThreeProcessesKeepTheDelay(absl::StrCat("redis://127.0.0.1:", redis.port(), "/e2e-delay"),
                                   "redis-delay");
}

// The same on a 3-primary Redis Cluster: the host's lease, cooldown and URL
// leases are the same scripts there, in the {NAME} slot.
TEST(RedisClusterFleetTest, ThreeProcessesKeepTheDelayOfOneHostBetweenThem) {
  sieve_test::RedisCluster cluster(3);
  const absl::Status started = cluster.Start();
  ASSERT_TRUE(started.ok()) << started;
  ExpectThreeProcessesKeepTheDelay(cluster.FrontierUrl("e2e-delay"), "cluster-delay");
}

TEST(RedisFrontierTest, ASigkilledProcessLosesNothingTheOthersFinishTheSite) {
  LocalRedis redis;
  ASSERT_TRUE(redis.Start()) << "redis-server (from PATH) did not start";
  testsite::SiteOptions site_options;
  site_options.pages = 120;
  site_options.latency_ms = 20;  // ~120 x 20 ms / 3 processes: ~1 s of crawling
  absl::StatusOr<std::unique_ptr<testsite::TestSite>> site =
      testsite::TestSite::Start(site_options);
  ASSERT_TRUE(site.ok()) << site.status();
  // Short leases (URLs 5 s, longer than a survivor holds its URLs here; the
  // host 1 s, renewed by the holder's every round trip), so the killed
  // process's host and URLs come back within the test.
  const std::string frontier = absl::StrCat("redis://127.0.0.1:", redis.port(),
                                            "/e2e-kill?lease_ms=5000&host_lease_ms=1000");
  std::vector<CrawlChild> children;
  for (int i = 0; i < 3; ++i) {
    children.push_back(
        StartCrawlChild(absl::StrCat("redis-kill-", i), {(*site)->RootUrl()}, frontier));
  }
  // Once the crawl is under way (some pages fetched), kill the process that
  // holds the site's host lease ("hostname:pid:nonce" in NAME:hostowners).
  for (int i = 0; i < 500 && (*site)->RequestCountWithPrefix("/p/") < 15; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const std::string holder = redis.Hget(
      "e2e-kill:hostowners", (*site)->RootUrl().substr(0, (*site)->RootUrl().find('/', 8)));
  KillHolderAndAwaitTheOthers(children, holder);
  const std::set<std::string> logged = LoggedUrls(children);
  // Nothing lost: every page was fetched and has a record in one of the
  // pages.jsonl files (a fleet process writes each record before the page
  // counts as done; the killed one's records are all there); a page the
  // killed process had leased may have been fetched twice, never more.
  size_t refetched = 0;
  for (const std::string& url : (*site)->PageUrls()) {
    EXPECT_GE((*site)->RequestCount(PathOf(url)), 1u) << url;
    EXPECT_LE((*site)->RequestCount(PathOf(url)), 2u) << url;
    refetched += (*site)->RequestCount(PathOf(url)) == 2;
  }
  EXPECT_EQ(logged.size(), (*site)->PageUrls().size());
  std::printf("logged %zu of 120 pages; %zu fetched twice\n", logged.size(), refetched);
}

#ifdef CRAWL_REDIS_MODULE
INSTANTIATE_TEST_SUITE_P(PushPaths, RedisFleetTest, testing::Bool(), PushPathName);
#else
INSTANTIATE_TEST_SUITE_P(PushPaths, RedisFleetTest, testing::Values(false), PushPathName);
#endif

}  // namespace
}  // namespace e2e
