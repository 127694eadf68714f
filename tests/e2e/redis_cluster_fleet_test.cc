// Three `crawl` processes share one frontier on a 3-primary Redis Cluster
// (--frontier redis-cluster://127.0.0.1:P1,...,P3/NAME) and crawl three
// testsite hosts as one: every page of every host fetched exactly once in
// total (the sites' request counts and the three pages.jsonl files), each
// process fetched some (three hosts, three processes: each holds at most
// its fair share, one host, so the hosts go to different processes), all exit 0
// when the shared queue is drained; a process SIGKILLed mid-crawl, or the
// primary of the fleet's keys, loses nothing. The first two run on both
// push paths: the cluster's nodes without the crawlsieve module (the
// filter step by the Lua script) and with it (CRAWLSIEVE.FILTER). The cluster
// (tests/redis_fixture/redis_cluster.h) listens on 127.0.0.1 only; a
// missing redis-server or redis-cli is a failure, not a skip.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "e2e/binary_crawl.h"
#include "e2e/crawl_child.h"
#include "e2e/e2e_util.h"
#include "gtest/gtest.h"
#include "redis_fixture/redis_cluster.h"
#include "testsite/test_site.h"
// Where a host's leases live (the frontier's queue partitions).
#include "../../sieve/src/redis/queue_partitions.h"

namespace e2e {
namespace {

// Starts the cluster; the failure says why.
testing::AssertionResult Started(sieve_test::RedisCluster& cluster) {
  const absl::Status started = cluster.Start();
  if (started.ok()) return testing::AssertionSuccess();
  return testing::AssertionFailure() << started;
}

// Three testsite hosts, 127.0.0.1 to .3, of `pages` pages each.
struct ThreeHosts {
  std::vector<std::unique_ptr<testsite::TestSite>> sites;
  std::vector<std::string> seeds;  // their roots

  static ThreeHosts Start(int pages, int latency_ms) {
    ThreeHosts hosts;
    for (int i = 1; i <= 3; ++i) {
      testsite::SiteOptions options;
      options.pages = pages;
      options.links_per_page = 8;
      options.host = absl::StrCat("127.0.0.", i);
      options.latency_ms = latency_ms;
      absl::StatusOr<std::unique_ptr<testsite::TestSite>> site = testsite::TestSite::Start(options);
      EXPECT_TRUE(site.ok()) << site.status();
      if (!site.ok()) continue;
      hosts.seeds.push_back((*site)->RootUrl());
      hosts.sites.push_back(*std::move(site));
    }
    return hosts;
  }
  uint64_t TotalRequests() const {
    uint64_t total = 0;
    for (const auto& site : sites) total += site->TotalRequests();
    return total;
  }
};

// The parameter: every node has the crawlsieve module; each test checks at
// the end which path the filter steps took.
class RedisClusterFleetPathTest : public testing::TestWithParam<bool> {
 protected:
  void TearDown() override {
    if (GetParam()) {
      EXPECT_GT(cluster_.CommandCalls("crawlsieve.filter"), 0) << "the module took no filter step";
    } else {
      EXPECT_EQ(cluster_.CommandCalls("crawlsieve.filter"), 0);
    }
  }
  sieve_test::RedisCluster cluster_{3, 0, GetParam()};
};

std::string ClusterPushPathName(const testing::TestParamInfo<bool>& info) {
  return info.param ? "Module" : "Lua";
}

INSTANTIATE_TEST_SUITE_P(PushPaths, RedisClusterFleetPathTest, testing::Bool(),
                         ClusterPushPathName);

TEST_P(RedisClusterFleetPathTest, ThreeProcessesCrawlThreeHostsOnceInTotal) {
  sieve_test::RedisCluster& cluster = cluster_;
  ASSERT_TRUE(Started(cluster));
  // 20 ms a page (~1.2 s a host): the first process must not finish a host
  // before the last has started and been counted live (at 5 ms, 3 of 12
  // runs on a loaded machine left the last process no host).
  ThreeHosts hosts = ThreeHosts::Start(120, 20);
  ASSERT_EQ(hosts.sites.size(), 3u);
  const std::vector<std::string>& seeds = hosts.seeds;
  const auto& sites = hosts.sites;
  // No max_hosts: each process holds at most its fair share of the hosts
  // (three hosts, three live processes: one each), and a host given back
  // goes to the process that waited longest for one.
  const std::string frontier = cluster.FrontierUrl("e2e-cluster");
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
    const int keys = std::atoi(cluster.CommandOn(i, {"DBSIZE"}).c_str());
    std::printf("node %zu holds %d keys\n", i, keys);
    holding += keys > 0;
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
  sieve_test::RedisCluster cluster(3, 1);
  ASSERT_TRUE(Started(cluster));
  ThreeHosts hosts = ThreeHosts::Start(120, 50);  // slow enough that the kill lands mid-crawl
  ASSERT_EQ(hosts.sites.size(), 3u);
  const std::vector<std::string>& seeds = hosts.seeds;
  const auto& sites = hosts.sites;
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
    before_kill = hosts.TotalRequests();
  }
  EXPECT_GE(cluster.KillPrimaryOf("{e2e-fo}:meta"), 0) << "no primary held {e2e-fo}";
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

// A process SIGKILLed mid-crawl on a cluster loses nothing. Three
// processes on three hosts (?max_hosts=1: a host each); the holder of the
// first host is killed once 15 of its pages are fetched, often in the
// middle of a push of a page's links (journal, filter step, enqueue: the
// case that lost pages before the journal). Its journal record is claimed
// by a survivor's pop after the URL lease (5 s) and its trip finished; its
// host comes back after the host lease (1 s), its leased URLs after the URL
// lease. Every page of the three hosts is fetched (twice at most: the
// killed one's leased pages) and has a record in one of the pages.jsonl
// files; the survivors exit 0 with the queue drained.
TEST_P(RedisClusterFleetPathTest, ASigkilledProcessLosesNothingTheOthersFinishTheSites) {
  sieve_test::RedisCluster& cluster = cluster_;
  ASSERT_TRUE(Started(cluster));
  ThreeHosts hosts = ThreeHosts::Start(120, 20);
  ASSERT_EQ(hosts.sites.size(), 3u);
  const std::string frontier =
      cluster.FrontierUrl("e2e-kill") + "?max_hosts=1&lease_ms=5000&host_lease_ms=1000";
  std::vector<CrawlChild> children;
  for (int i = 0; i < 3; ++i) {
    children.push_back(
        StartCrawlChild(absl::StrCat("redis-cluster-kill-", i), hosts.seeds, frontier));
  }
  const testsite::TestSite& first = *hosts.sites[0];
  for (int i = 0; i < 500 && first.RequestCountWithPrefix("/p/") < 15; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // The holder of the first host ("hostname:pid:nonce" in the hostowners
  // of its queue partition).
  const std::string host = first.RootUrl().substr(0, first.RootUrl().find('/', 8));
  const std::string hostowners =
      sieve::internal::PartitionPrefixes(
          "e2e-kill", sieve::internal::kDefaultClusterPartitions)[sieve::internal::PartitionOfHost(
          host, sieve::internal::kDefaultClusterPartitions)] +
      "hostowners";
  const int primary = cluster.PrimaryOf(
      std::atoi(cluster.CommandOn(0, {"CLUSTER", "KEYSLOT", hostowners}).c_str()));
  ASSERT_GE(primary, 0);
  std::string holder;
  for (int i = 0; i < 200 && holder.empty(); ++i) {
    holder = cluster.CommandOn(primary, {"HGET", hostowners, host});
    if (holder.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  KillHolderAndAwaitTheOthers(children, holder);
  const std::set<std::string> logged = LoggedUrls(children);
  size_t pages = 0;
  size_t refetched = 0;
  for (const auto& site : hosts.sites) {
    for (const std::string& url : site->PageUrls()) {
      EXPECT_GE(site->RequestCount(PathOf(url)), 1u) << url << " never fetched";
      EXPECT_LE(site->RequestCount(PathOf(url)), 2u) << url;
      EXPECT_EQ(logged.count(url), 1u) << url << " has no record";
      refetched += site->RequestCount(PathOf(url)) == 2;
      ++pages;
    }
  }
  EXPECT_EQ(pages, 360u);
  std::printf("logged %zu of %zu pages; %zu fetched twice\n", logged.size(), pages, refetched);
}

// --max-pages and --max-depth across the fleet on a cluster: the page
// budget ({NAME}:pages, taken by a script routed by {NAME}:meta) and the
// depth in each URL's payload hold as on one server: three processes with
// --max-pages 40 fetch 40 pages in total; with --max-depth 1, exactly the
// pages within depth 1, each once.
TEST(RedisClusterFleetTest, MaxPagesAndMaxDepthHoldAcrossProcesses) {
  sieve_test::RedisCluster cluster(3);
  ASSERT_TRUE(Started(cluster));
  for (const bool pages_run : {true, false}) {
    ThreeHosts hosts = ThreeHosts::Start(100, 0);
    ASSERT_EQ(hosts.sites.size(), 3u);
    const std::vector<std::string>& seeds = hosts.seeds;
    const auto& sites = hosts.sites;
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
  sieve_test::RedisCluster cluster(3);
  ASSERT_TRUE(Started(cluster));
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
  EXPECT_GE(cluster.KillPrimaryOf("{e2e-down}:meta"), 0);
  process.join();
  EXPECT_NE(crawl.run.exit_code, 0) << crawl.run.err;
  EXPECT_EQ(crawl.summary["stop_reason"], "error");
  EXPECT_NE(crawl.run.err.find("redis cluster failed"), std::string::npos) << crawl.run.err;
  EXPECT_LT((*site)->TotalRequests(), 200u) << "the crawl finished before the kill";
}

}  // namespace
}  // namespace e2e
