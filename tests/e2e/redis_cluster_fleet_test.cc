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
#include <cstdio>
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

// Three cluster primaries on ports whose bus ports (+10000) are free too.
class ThreeNodeCluster {
 public:
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
    for (int i = 0; i < 3; ++i) {
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
                                       "redis.log"};
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
                                     " --cluster-yes"),
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
      if (ok == 3) return "";
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return "the cluster did not reach cluster_state:ok";
  }

  std::string FrontierUrl(const std::string& name) const {
    std::vector<std::string> nodes;
    for (int port : ports_) nodes.push_back(absl::StrCat("127.0.0.1:", port));
    return absl::StrCat("redis-cluster://", absl::StrJoin(nodes, ","), "/", name);
  }
  // Keys on node i (DBSIZE).
  int KeysOn(size_t i) const {
    std::string out;
    ShellForCluster(absl::StrCat("redis-cli -p ", ports_[i], " dbsize"), out);
    return std::atoi(out.c_str());
  }

 private:
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

}  // namespace
}  // namespace e2e
