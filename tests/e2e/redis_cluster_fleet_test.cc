// Three `crawl` processes share one frontier on a 3-primary Redis Cluster
// (--frontier redis-cluster://127.0.0.1:P1,...,P3/NAME) and crawl three
// testsite hosts as one: every page of every host fetched exactly once in
// total (the sites' request counts and the three pages.jsonl files), each
// process fetched some (three hosts and ?max_hosts=1: one process holds
// one host at a time, so the hosts go to different processes), all exit 0
// when the shared queue is drained. The cluster's nodes (redis-server --cluster-enabled yes, joined
// by redis-cli --cluster create) listen on 127.0.0.1 only; a missing
// redis-server or redis-cli is a failure, not a skip.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "e2e/binary_crawl.h"
#include "e2e/e2e_util.h"
#include "gtest/gtest.h"
#include "testsite/test_site.h"

namespace e2e {
namespace {

// Runs a shell command; its exit status, output in `output`.
int ShellForCluster(const std::string& command, std::string& output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
  return pclose(pipe);
}

bool LoopbackPortFree(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool free = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return free;
}

// Three cluster primaries (and `replicas` replicas of each) on ports whose
// bus ports (+10000) are free too; a 1 s node timeout, so a dead primary's
// replica takes over in ~2 s.
class ThreeNodeCluster {
 public:
  explicit ThreeNodeCluster(int replicas = 0) : replicas_(replicas) {}
  ~ThreeNodeCluster() {
    for (pid_t pid : pids_) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }

  // Empty on success, else what failed.
  std::string Start() {
    std::string out;
    if (ShellForCluster("redis-cli --version", out) != 0) return "redis-cli is not on PATH";
    std::mt19937 random(std::random_device{}());
    std::vector<std::string> addresses;
    for (int i = 0; i < 3 * (1 + replicas_); ++i) {
      int port = 0;
      do {
        port = 20000 + static_cast<int>(random() % 30000);
      } while (!LoopbackPortFree(port) || !LoopbackPortFree(port + 10000));
      const std::string dir = FreshDir(absl::StrCat("redis-cluster-fleet-", i));
      std::vector<std::string> args = {"redis-server",
                                       "--port",
                                       std::to_string(port),
                                       "--bind",
                                       "127.0.0.1",
                                       "--save",
                                       "",
                                       "--appendonly",
                                       "no",
                                       "--dir",
                                       dir,
                                       "--cluster-enabled",
                                       "yes",
                                       "--cluster-config-file",
                                       "nodes.conf",
                                       "--logfile",
                                       "redis.log",
                                       "--cluster-node-timeout",
                                       "1000"};
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      const pid_t pid = fork();
      if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        execvp("redis-server", argv.data());
        _exit(127);
      }
      pids_.push_back(pid);
      ports_.push_back(port);
      addresses.push_back(absl::StrCat("127.0.0.1:", port));
    }
    for (int port : ports_) {
      for (int i = 0; i < 500; ++i) {
        std::string pong;
        if (ShellForCluster(absl::StrCat("redis-cli -p ", port, " ping"), pong) == 0 &&
            pong.find("PONG") != std::string::npos) {
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    out.clear();
    if (ShellForCluster(absl::StrCat("redis-cli --cluster create ", absl::StrJoin(addresses, " "),
                                     " --cluster-replicas ", replicas_, " --cluster-yes"),
                        out) != 0) {
      return out;
    }
    for (int i = 0; i < 500; ++i) {
      int ok = 0;
      for (int port : ports_) {
        std::string info;
        ShellForCluster(absl::StrCat("redis-cli -p ", port, " cluster info"), info);
        ok += info.find("cluster_state:ok") != std::string::npos;
      }
      if (ok == static_cast<int>(ports_.size()) && Attached() == 3 * replicas_) {
        return replicas_ > 0 ? AwaitStreaming() : "";
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return "the cluster did not reach cluster_state:ok with its replicas attached";
  }

  // SIGKILLs the primary holding `key`'s slot (a master with keys there);
  // returns its port, 0 if none was found.
  int KillPrimaryOf(const std::string& key) {
    std::string slot;
    ShellForCluster(absl::StrCat("redis-cli -p ", ports_[0], " cluster keyslot '", key, "'"), slot);
    for (size_t i = 0; i < ports_.size(); ++i) {
      std::string role, count;
      ShellForCluster(absl::StrCat("redis-cli -p ", ports_[i], " role"), role);
      ShellForCluster(absl::StrCat("redis-cli -p ", ports_[i], " cluster countkeysinslot ",
                                   std::atoi(slot.c_str())),
                      count);
      if (role.rfind("master", 0) == 0 && std::atoi(count.c_str()) > 0) {
        kill(pids_[i], SIGKILL);
        waitpid(pids_[i], nullptr, 0);
        pids_.erase(pids_.begin() + static_cast<std::ptrdiff_t>(i));
        const int port = ports_[i];
        ports_.erase(ports_.begin() + static_cast<std::ptrdiff_t>(i));
        return port;
      }
    }
    return 0;
  }

  std::string FrontierUrl(const std::string& name) const {
    std::vector<std::string> nodes;
    for (int port : ports_) nodes.push_back(absl::StrCat("127.0.0.1:", port));
    return absl::StrCat("redis-cluster://", absl::StrJoin(nodes, ","), "/", name);
  }
  // A replica's link is up once its first sync is done, but its primary
  // streams writes to it only after the replica's first REPLCONF ACK (up to
  // a second later): a primary killed in between leaves a replica with
  // nothing, and the frontier is lost (the client then stops with
  // DataLoss). A running cluster is past that: a write on each primary (to
  // a key of its slots: the first of w0, w1, ... it accepts), then wait
  // until every replica's offset moved.
  std::string AwaitStreaming() const {
    for (int port : ports_) {
      std::string role;
      ShellForCluster(absl::StrCat("redis-cli -p ", port, " role"), role);
      if (role.rfind("master", 0) != 0) continue;
      for (int k = 0; k < 200; ++k) {
        std::string reply;
        ShellForCluster(absl::StrCat("redis-cli -p ", port, " set w", k, " 1"), reply);
        if (reply.rfind("OK", 0) == 0) break;
      }
    }
    // Each replica has received some of the stream (its offset moved past
    // the full sync's 0).
    for (int attempt = 0; attempt < 500; ++attempt) {
      int streaming = 0;
      for (int port : ports_) {
        std::string info;
        ShellForCluster(absl::StrCat("redis-cli -p ", port, " info replication"), info);
        const size_t at = info.find("slave_repl_offset:");
        if (at != std::string::npos && std::atoll(info.c_str() + at + 18) > 0) ++streaming;
      }
      if (streaming == 3 * replicas_) return "";
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return "the replicas received no replication stream within 10 s";
  }
  // Replicas whose link to their primary is up.
  int Attached() const {
    int attached = 0;
    for (int port : ports_) {
      std::string info;
      ShellForCluster(absl::StrCat("redis-cli -p ", port, " info replication"), info);
      attached += info.find("master_link_status:up") != std::string::npos;
    }
    return attached;
  }
  // Keys on node i (DBSIZE).
  int KeysOn(size_t i) const {
    std::string out;
    ShellForCluster(absl::StrCat("redis-cli -p ", ports_[i], " dbsize"), out);
    return std::atoi(out.c_str());
  }

 private:
  int replicas_;
  std::vector<pid_t> pids_;
  std::vector<int> ports_;
};

TEST(RedisClusterFleetTest, ThreeProcessesCrawlThreeHostsOnceInTotal) {
  ThreeNodeCluster cluster;
  const std::string started = cluster.Start();
  ASSERT_EQ(started, "");
  std::vector<std::unique_ptr<testsite::TestSite>> sites;
  std::vector<std::string> seeds;
  for (int i = 1; i <= 3; ++i) {
    testsite::SiteOptions options;
    options.pages = 120;
    options.links_per_page = 8;
    options.host = absl::StrCat("127.0.0.", i);
    options.latency_ms = 5;  // the first process must not finish a host before the last starts
    absl::StatusOr<std::unique_ptr<testsite::TestSite>> site = testsite::TestSite::Start(options);
    ASSERT_TRUE(site.ok()) << site.status();
    seeds.push_back((*site)->RootUrl());
    sites.push_back(*std::move(site));
  }
  // max_hosts=1: one host per process at a time, so three hosts go to three
  // processes (uncapped, the first to pop takes every host with a URL).
  const std::string frontier = cluster.FrontierUrl("e2e-cluster") + "?max_hosts=1";
  std::vector<BinaryCrawl> crawls(3);
  std::vector<std::thread> processes;
  for (int i = 0; i < 3; ++i) {
    processes.emplace_back([&, i] {
      crawls[i] = RunCrawlBinary(absl::StrCat("redis-cluster-fleet-", i), seeds,
                                 {"--frontier", frontier, "--delay", "0"});
    });
  }
  for (std::thread& p : processes) p.join();

  std::map<std::string, int> logged;  // URL -> records across the three processes
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(crawls[i].run.exit_code, 0) << "process " << i << ": " << crawls[i].run.err;
    EXPECT_EQ(crawls[i].summary["stop_reason"], "drained") << "process " << i;
    EXPECT_GT(crawls[i].pages.size(), 0u) << "process " << i << " did no work";
    for (const nlohmann::json& page : crawls[i].pages) ++logged[page["url"].get<std::string>()];
    std::printf("process %d logged %zu pages\n", i, crawls[i].pages.size());
  }
  size_t pages = 0;
  for (const auto& site : sites) {
    for (const std::string& url : site->PageUrls()) {
      EXPECT_EQ(site->RequestCount(PathOf(url)), 1u) << url;
      EXPECT_EQ(logged[url], 1) << url;
      ++pages;
    }
  }
  EXPECT_EQ(pages, 360u);
  EXPECT_EQ(logged.size(), pages);
  // The frontier lived on the cluster, spread: the fleet's keys on one
  // primary, the filter's shards on others.
  int holding = 0;
  for (size_t i = 0; i < 3; ++i) {
    std::printf("node %zu holds %d keys\n", i, cluster.KeysOn(i));
    holding += cluster.KeysOn(i) > 0;
  }
  EXPECT_GE(holding, 2);
}

// The primary holding the fleet's keys ({NAME}) is SIGKILLed mid-crawl
// (a quarter of the site fetched); its replica takes over (~2 s with a 1 s
// node timeout) while the three processes' Redis calls retry (crawl's
// policy: 8 attempts over ~6 s). The crawl completes: every page fetched
// and recorded, all exit 0. Duplicate fetches (requests at the site
// beyond one per page) are counted and bounded. Where they come from: a
// process blocked in a Redis call through the failover lets its transfers
// time out (--timeout 3s) and retries them (<= per_host 2 x retries 2 per
// process here, one host each); and Redis replicates asynchronously, so an
// ack or a pop the dead primary took but had not passed on is undone (the
// URL goes out again after its lease: lease_ms=10000, longer than the
// outage, so live leases do not expire during it). Bound asserted: what
// the three processes can hold at the kill, 3 x (16 leased + 8 transfers'
// retries) = 72; measured 11-18 over 20 runs.
TEST(RedisClusterFleetTest, APrimaryDiesMidCrawlAndTheCrawlCompletes) {
  ThreeNodeCluster cluster(1);
  const std::string started = cluster.Start();
  ASSERT_EQ(started, "");
  std::vector<std::unique_ptr<testsite::TestSite>> sites;
  std::vector<std::string> seeds;
  for (int i = 1; i <= 3; ++i) {
    testsite::SiteOptions options;
    options.pages = 120;
    options.links_per_page = 8;
    options.host = absl::StrCat("127.0.0.", i);
    options.latency_ms = 50;  // slow enough that the kill lands mid-crawl
    absl::StatusOr<std::unique_ptr<testsite::TestSite>> site = testsite::TestSite::Start(options);
    ASSERT_TRUE(site.ok()) << site.status();
    seeds.push_back((*site)->RootUrl());
    sites.push_back(*std::move(site));
  }
  const std::string frontier = cluster.FrontierUrl("e2e-fo") + "?max_hosts=1&lease_ms=10000";
  std::vector<BinaryCrawl> crawls(3);
  std::vector<std::thread> processes;
  for (int i = 0; i < 3; ++i) {
    processes.emplace_back([&, i] {
      crawls[i] = RunCrawlBinary(absl::StrCat("redis-cluster-failover-", i), seeds,
                                 {"--frontier", frontier, "--delay", "0"});
    });
  }
  // The kill once about a quarter of the site is fetched.
  uint64_t before_kill = 0;
  for (int wait = 0; wait < 3000 && before_kill < 90; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    before_kill = 0;
    for (const auto& site : sites) before_kill += site->TotalRequests();
  }
  EXPECT_GT(cluster.KillPrimaryOf("{e2e-fo}:meta"), 0) << "no primary held {e2e-fo}";
  for (std::thread& p : processes) p.join();

  size_t logged = 0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(crawls[i].run.exit_code, 0) << "process " << i << ": " << crawls[i].run.err;
    EXPECT_EQ(crawls[i].summary["stop_reason"], "drained") << "process " << i;
    logged += crawls[i].pages.size();
    if (std::getenv("CLUSTER_FAILOVER_DEBUG") != nullptr) {
      std::printf("--- process %d stderr:\n%s\n", i, crawls[i].run.err.c_str());
    }
  }
  uint64_t duplicates = 0;
  uint64_t pages = 0;
  for (const auto& site : sites) {
    for (const std::string& url : site->PageUrls()) {
      const uint64_t fetched = site->RequestCount(PathOf(url));
      EXPECT_GE(fetched, 1u) << url << " never fetched";
      duplicates += fetched > 1 ? fetched - 1 : 0;
      ++pages;
    }
  }
  std::printf(
      "%llu requests before the kill (of %llu pages); %llu duplicate fetches after "
      "the failover; %zu records\n",
      static_cast<unsigned long long>(before_kill), static_cast<unsigned long long>(pages),
      static_cast<unsigned long long>(duplicates), logged);
  EXPECT_GT(before_kill, 0u);
  EXPECT_LT(before_kill, pages) << "the kill came after the crawl";
  EXPECT_LE(duplicates, 72u);
  EXPECT_GE(logged, pages);  // every page recorded; twice only if fetched twice
  EXPECT_LE(logged, pages + duplicates);
}

// --max-pages and --max-depth across the fleet on a cluster: the page
// budget ({NAME}:pages, taken by a script routed by {NAME}:meta) and the
// depth in each URL's payload hold as on one server: three processes with
// --max-pages 40 fetch 40 pages in total; with --max-depth 1, exactly the
// pages within depth 1, each once.
TEST(RedisClusterFleetTest, MaxPagesAndMaxDepthHoldAcrossProcesses) {
  ThreeNodeCluster cluster;
  const std::string started = cluster.Start();
  ASSERT_EQ(started, "");
  for (const bool pages_run : {true, false}) {
    std::vector<std::unique_ptr<testsite::TestSite>> sites;
    std::vector<std::string> seeds;
    for (int i = 1; i <= 3; ++i) {
      testsite::SiteOptions options;
      options.pages = 100;
      options.links_per_page = 8;
      options.host = absl::StrCat("127.0.0.", i);
      absl::StatusOr<std::unique_ptr<testsite::TestSite>> site = testsite::TestSite::Start(options);
      ASSERT_TRUE(site.ok()) << site.status();
      seeds.push_back((*site)->RootUrl());
      sites.push_back(*std::move(site));
    }
    const std::string name = pages_run ? "e2e-pages" : "e2e-depth";
    std::vector<std::string> flags = {"--frontier", cluster.FrontierUrl(name), "--delay", "0"};
    const std::vector<std::string> limit = pages_run ? std::vector<std::string>{"--max-pages", "40"}
                                                     : std::vector<std::string>{"--max-depth", "1"};
    flags.insert(flags.end(), limit.begin(), limit.end());
    std::vector<BinaryCrawl> crawls(3);
    std::vector<std::thread> processes;
    for (int i = 0; i < 3; ++i) {
      processes.emplace_back([&, i] {
        crawls[i] = RunCrawlBinary(absl::StrCat("redis-cluster-", name, "-", i), seeds, flags);
      });
    }
    for (std::thread& p : processes) p.join();
    std::map<std::string, int> logged;
    size_t records = 0;
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(crawls[i].run.exit_code, 0)
          << name << " process " << i << ": " << crawls[i].run.err;
      records += crawls[i].pages.size();
      for (const nlohmann::json& page : crawls[i].pages) ++logged[page["url"].get<std::string>()];
    }
    size_t requests = 0;
    for (const auto& site : sites) requests += site->TotalRequests();
    if (pages_run) {
      EXPECT_EQ(requests, 40u);
      EXPECT_EQ(records, 40u);
      continue;
    }
    size_t within_total = 0;
    for (const auto& site : sites) {
      const std::vector<std::string> within = site->PageUrlsWithinDepth(1);
      ASSERT_LT(within.size(), 100u);  // the limit must cut something
      for (const std::string& url : within) EXPECT_EQ(logged[url], 1) << url;
      EXPECT_EQ(site->TotalRequests(), within.size()) << site->RootUrl();
      within_total += within.size();
    }
    EXPECT_EQ(records, within_total);
  }
}

// The primary holding {NAME} dies and nothing takes over (no replica): the
// cluster stays down, the process's retries run out (~6 s), and `crawl`
// stops with the error (stop_reason "error", exit non-zero) rather than
// reading its failed frontier as a drained queue and exiting 0.
TEST(RedisClusterFleetTest, AFrontierThatStaysDownEndsTheCrawlWithAnError) {
  ThreeNodeCluster cluster;
  const std::string started = cluster.Start();
  ASSERT_EQ(started, "");
  testsite::SiteOptions options;
  options.pages = 200;
  options.latency_ms = 50;
  absl::StatusOr<std::unique_ptr<testsite::TestSite>> site = testsite::TestSite::Start(options);
  ASSERT_TRUE(site.ok()) << site.status();
  BinaryCrawl crawl;
  std::thread process([&] {
    crawl = RunCrawlBinary("redis-cluster-down", {(*site)->RootUrl()},
                           {"--frontier", cluster.FrontierUrl("e2e-down"), "--delay", "0"});
  });
  for (int wait = 0; wait < 3000 && (*site)->TotalRequests() < 20; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GT(cluster.KillPrimaryOf("{e2e-down}:meta"), 0);
  process.join();
  EXPECT_NE(crawl.run.exit_code, 0) << crawl.run.err;
  EXPECT_EQ(crawl.summary["stop_reason"], "error");
  EXPECT_NE(crawl.run.err.find("redis cluster failed"), std::string::npos) << crawl.run.err;
  EXPECT_LT((*site)->TotalRequests(), 200u) << "the crawl finished before the kill";
}

}  // namespace
}  // namespace e2e
