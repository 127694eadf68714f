// Stress under faults: the real `crawl` binary with 8 fetcher
// threads (--fetch-threads), 8 parser threads and 16 connections
// crawls a 2000-page site whose seeded 8% of pages fail their first request
// (500, 503 + Retry-After, reset, truncated body) or stall mid-body. In the
// TSan and ASan builds the crawl binary is sanitized too, so a race or a
// memory error shows on its stderr, which fails the test.
//
// The server's counts are the truth: every page requested exactly once more
// than it was made to fail, every page recorded once with 200, and the
// counters of summary.json agree. Once plain, once with checkpoints every
// 50 ms running beside the fetchers and parsers.
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "e2e/binary_crawl.h"
#include "e2e/e2e_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testsite/test_site.h"

namespace {

constexpr uint64_t kStressPages = 2000;
constexpr double kFaultRate = 0.08;  // ~160 faulty pages, ~32 of each kind
constexpr uint64_t kSeed = 6;

std::unique_ptr<testsite::TestSite> StartFaultySite() {
  testsite::SiteOptions options;
  options.pages = kStressPages;
  options.links_per_page = 8;
  options.page_bytes = 2048;
  options.seed = kSeed;
  options.fault_rate = kFaultRate;
  options.fault_stall_ms = 300;  // well under the crawl's 3 s timeout
  auto site = testsite::TestSite::Start(options);
  EXPECT_TRUE(site.ok()) << site.status();
  return site.ok() ? std::move(*site) : nullptr;
}

// 8 fetcher and 8 parser threads; more connections than fetcher threads so
// each curl multi handle drives several transfers; retries enough for one
// failure per page.
std::vector<std::string> StressFlags() {
  return {"--fetch-threads", "8",  "--threads", "8", "--connections", "16",
          "--per-host",      "16", "--retries", "2"};
}

void ExpectNoSanitizerReport(const e2e::BinaryCrawl& crawl) {
  for (const char* report :
       {"ThreadSanitizer", "AddressSanitizer", "LeakSanitizer", "runtime error"}) {
    EXPECT_THAT(crawl.run.err, ::testing::Not(::testing::HasSubstr(report)));
  }
}

// The faults really happened, of every kind.
void ExpectFaultsInjected(const testsite::TestSite& site) {
  const testsite::FaultCounts faults = site.InjectedFaults();
  EXPECT_GT(faults.http_500, 0u);
  EXPECT_GT(faults.http_503, 0u);
  EXPECT_GT(faults.resets, 0u);
  EXPECT_GT(faults.truncations, 0u);
  EXPECT_GT(faults.stalls, 0u);
  EXPECT_GT(site.RequestCountWithPrefix("/p/") + site.RequestCount("/"), kStressPages);
}

// Every page fetched with 200, recorded once; the server saw exactly one
// request per page plus its injected failure, so no page was fetched twice.
void ExpectEveryPageOnce(const testsite::TestSite& site, const e2e::BinaryCrawl& crawl) {
  std::map<std::string, int> records;
  int64_t retried = 0;
  for (const nlohmann::json& page : crawl.pages) {
    const std::string path = e2e::PathOf(page["url"].get<std::string>());
    ++records[path];
    EXPECT_EQ(page["status"], 200) << path;
    EXPECT_TRUE(page["error"].is_null()) << path << " " << page["error"];
    retried += page["attempts"].get<int64_t>() - 1;
  }
  uint64_t failures = 0;
  for (const std::string& url : site.PageUrls()) {
    const std::string path = e2e::PathOf(url);
    EXPECT_EQ(records[path], 1) << path;
    const uint64_t failed = site.FailuresInjected(path);
    EXPECT_EQ(site.RequestCount(path), 1 + failed) << path;
    failures += failed;
  }
  EXPECT_EQ(records.size(), kStressPages);
  EXPECT_EQ(failures, site.InjectedFaults().failures());
  // Each failure cost its page exactly one more attempt.
  EXPECT_EQ(retried, static_cast<int64_t>(failures));
}

void ExpectSummaryAgrees(const e2e::BinaryCrawl& crawl) {
  ASSERT_TRUE(crawl.summary.is_object());
  EXPECT_EQ(crawl.summary["stop_reason"], "drained");
  EXPECT_EQ(crawl.summary["pages"], kStressPages);
  EXPECT_EQ(crawl.summary["pages_ok"], kStressPages);
  EXPECT_EQ(crawl.summary["status_counts"], nlohmann::json({{"200", kStressPages}}));
  EXPECT_TRUE(crawl.summary["errors_by_kind"].empty()) << crawl.summary["errors_by_kind"];
  EXPECT_EQ(crawl.summary["queued_at_end"], 0);
}

// The sequence number of the checkpoint CURRENT names ("ckpt-000042" -> 42).
int64_t CurrentCheckpoint(const std::string& state_dir) {
  std::ifstream current(state_dir + "/CURRENT");
  std::string name;
  current >> name;
  int64_t sequence = -1;
  if (name.rfind("ckpt-", 0) != 0 || !absl::SimpleAtoi(name.substr(5), &sequence)) return -1;
  return sequence;
}

TEST(StressTest, EightThreadsAndRandomFaultsFetchEveryPageOnce) {
  auto site = StartFaultySite();
  ASSERT_NE(site, nullptr);
  const e2e::BinaryCrawl crawl =
      e2e::RunCrawlBinary("stress_faults", {site->RootUrl()}, StressFlags());
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
  ExpectNoSanitizerReport(crawl);
  ExpectFaultsInjected(*site);
  ExpectEveryPageOnce(*site, crawl);
  ExpectSummaryAgrees(crawl);
}

TEST(StressTest, CheckpointsRunningBesideTheFetchersLoseAndRepeatNothing) {
  auto site = StartFaultySite();
  ASSERT_NE(site, nullptr);
  const std::string state_dir = e2e::FreshDir("stress_state") + "/state";
  std::vector<std::string> flags = StressFlags();
  flags.insert(flags.end(), {"--state", state_dir, "--checkpoint-every", "0.05"});
  const e2e::BinaryCrawl crawl =
      e2e::RunCrawlBinary("stress_checkpoints", {site->RootUrl()}, flags);
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
  ExpectNoSanitizerReport(crawl);
  ExpectFaultsInjected(*site);
  ExpectEveryPageOnce(*site, crawl);
  ExpectSummaryAgrees(crawl);
  // Checkpoints ran during the crawl (the crawl takes seconds: Retry-After 1
  // pauses the host), not just the one at the clean stop.
  EXPECT_GE(CurrentCheckpoint(state_dir), 5);
}

}  // namespace
