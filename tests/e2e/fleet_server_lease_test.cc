// A fleet on one shared frontier keeps one server's limits between its
// processes: 36 host names on one loopback address (--resolve), three
// `crawl` processes on one Redis frontier with --per-ip 2. Host leases give
// each name to one process, so without the fleet's server slots each
// process would open its own 2 connections (6 at once); the server's own
// count must never pass 2 (docs/politeness.md, "Per server"), on one
// Redis and on a Redis Cluster.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "e2e/binary_crawl.h"
#include "e2e/e2e_util.h"
#include "gtest/gtest.h"
#include "redis_fixture/redis_cluster.h"
#include "redis_fixture/redis_server.h"
#include "testsite/test_site.h"

namespace {

constexpr int kNames = 36;
constexpr int kPagesPerName = 3;
constexpr int kPerIp = 2;
// Each answer takes this long at the server, so fetches overlap and the
// server's peak is what the fleet allowed, not what it happened to see.
constexpr std::chrono::milliseconds kAnswerTime(100);

// Three processes on `frontier` crawl the 36 names; checks the server's peak.
void ExpectTheFleetKeepsPerIp(const std::string& frontier, const std::string& tag) {
  testsite::SiteOptions site_options;
  site_options.pages = 1;
  site_options.links_per_page = 1;
  site_options.threads = 16;
  absl::StatusOr<std::unique_ptr<testsite::TestSite>> site =
      testsite::TestSite::Start(site_options);
  ASSERT_TRUE(site.ok()) << site.status();
  const std::string port = absl::StrCat((*site)->port());
  std::vector<std::string> seeds;
  std::vector<std::string> names_flags;
  for (int i = 0; i < kNames; ++i) {
    const std::string name = absl::StrCat("h", i, ".test");
    names_flags.insert(names_flags.end(),
                       {"--resolve", absl::StrCat(name, ":", port, ":127.0.0.1")});
    for (int page = 0; page < kPagesPerName; ++page) {
      const std::string path = absl::StrCat("/", i, "/", page);
      (*site)->Handle(path, [](const httplib::Request&, httplib::Response& res) {
        std::this_thread::sleep_for(kAnswerTime);
        res.set_content("<html><body>leaf</body></html>", "text/html");
      });
      seeds.push_back(absl::StrCat("http://", name, ":", port, path));
    }
  }
  std::vector<e2e::BinaryCrawl> crawls(3);
  std::vector<std::thread> processes;
  for (int i = 0; i < 3; ++i) {
    processes.emplace_back([&, i] {
      std::vector<std::string> flags = {
          "--frontier",      frontier, "--per-ip",      absl::StrCat(kPerIp),
          "--ip-delay",      "0",      "--per-host",    "1",
          "--block-private", "off",    "--connections", "8",
          "--retries",       "0"};
      flags.insert(flags.end(), names_flags.begin(), names_flags.end());
      crawls[i] = e2e::RunCrawlBinary(absl::StrCat(tag, "-", i), seeds, flags, 120);
    });
  }
  for (std::thread& p : processes) p.join();

  size_t pages = 0;
  int processes_with_pages = 0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(crawls[i].run.exit_code, 0) << "process " << i << ": " << crawls[i].run.err;
    std::printf("process %d: %zu pages\n", i, crawls[i].pages.size());
    pages += crawls[i].pages.size();
    processes_with_pages += crawls[i].pages.empty() ? 0 : 1;
    for (const auto& page : crawls[i].pages) EXPECT_EQ(page["status"], 200) << page.dump();
  }
  EXPECT_EQ(pages, static_cast<size_t>(kNames * kPagesPerName));
  for (const std::string& seed : seeds) {
    EXPECT_EQ((*site)->RequestCount(e2e::PathOf(seed)), 1u) << seed;
  }
  // More than one process fetched, so the limit held between processes,
  // not only inside one.
  EXPECT_GE(processes_with_pages, 2);
  std::printf("peak at the server: %d at once (--per-ip %d)\n", (*site)->MaxConcurrentRequests(),
              kPerIp);
  EXPECT_LE((*site)->MaxConcurrentRequests(), kPerIp);
  EXPECT_GE((*site)->MaxConcurrentRequests(), 1);
}

TEST(FleetServerLease, ThreeProcessesKeepOneServersPerIpBetweenThem) {
  sieve_test::RedisServer redis;
  const absl::Status started = redis.Start();
  ASSERT_TRUE(started.ok()) << started;
  ExpectTheFleetKeepsPerIp(absl::StrCat("redis://127.0.0.1:", redis.port(), "/fleet-ip"),
                           "fleet-ip");
}

// The same on a 3-primary Redis Cluster: the server slots' keys are in the
// {NAME} slot, as the page budget's.
TEST(FleetServerLease, ThreeProcessesOnARedisClusterKeepOneServersPerIp) {
  sieve_test::RedisCluster cluster(3);
  const absl::Status started = cluster.Start();
  ASSERT_TRUE(started.ok()) << started;
  ExpectTheFleetKeepsPerIp(cluster.FrontierUrl("fleet-ip"), "cluster-fleet-ip");
}

}  // namespace
