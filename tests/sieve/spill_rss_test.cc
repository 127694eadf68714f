// The frontier-sized test of the spilling queue, in its own program because it
// reads the process's peak RSS (VmHWM): 5e6 URLs through a Sieve with a 4 MiB
// queue budget come out in exactly the order they went in, and the process
// never held more than filter + budget + 64 MiB (the 5e6 URLs themselves are
// ~350 MB as text).
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "sieve/sieve.h"
#include "sieve/test_urls.h"

namespace sieve {
namespace {

using sieve_test::ScratchDir;
using sieve_test::TestUrl;

#ifdef CRAWL_SANITIZED
// ASan/TSan make 5e6 pushes take minutes and their shadow memory makes RSS
// meaningless: the order check runs on 5e5 URLs, the RSS check not at all.
constexpr uint64_t kUrls = 500'000;
#else
constexpr uint64_t kUrls = 5'000'000;
#endif
constexpr size_t kBudget = size_t{4} << 20;

#ifndef CRAWL_SANITIZED
// Peak resident set of this process in bytes, from /proc/self/status.
uint64_t PeakRssBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}
#endif

TEST(SpillRssTest, FiveMillionUrlsKeepOrderAndStayWithinBudget) {
  ScratchDir dir;
  SieveOptions options;
  options.expected_count = kUrls;
  options.queue_memory_budget_bytes = kBudget;
  options.spill_dir = dir.path();
  absl::StatusOr<std::unique_ptr<Sieve>> created = Sieve::Create(options);
  ASSERT_TRUE(created.ok()) << created.status();
  Sieve& sieve = **created;

  std::vector<bool> accepted(kUrls);
  for (uint64_t i = 0; i < kUrls; ++i) accepted[i] = sieve.Push(TestUrl(i));
  const SieveStats full = sieve.Stats();
  EXPECT_EQ(full.queued, full.accepted);
  EXPECT_GT(full.accepted, kUrls * 99 / 100);   // ~0.3% wrongly dropped at p = 1%
  EXPECT_GT(full.queue_disk_bytes, kUrls * 3);  // zstd: these test URLs compress to ~7 bytes
  EXPECT_LT(full.queue_memory_bytes, 2 * kBudget);

  uint64_t next = 0;
  while (std::optional<std::string> url = sieve.TryPop()) {
    while (next < kUrls && !accepted[next]) ++next;
    ASSERT_LT(next, kUrls);
    ASSERT_EQ(*url, TestUrl(next)) << "order broken at URL " << next;
    ASSERT_TRUE(sieve.MarkDone(*url));
    ++next;
  }
  while (next < kUrls && !accepted[next]) ++next;
  EXPECT_EQ(next, kUrls) << "queue ended early";
  EXPECT_EQ(sieve.Stats().queue_disk_bytes, 0u);  // reclaimed as consumed

#ifndef CRAWL_SANITIZED
  const uint64_t limit = full.filter_bytes + kBudget + (uint64_t{64} << 20);
  const uint64_t peak = PeakRssBytes();
  RecordProperty("peak_rss_bytes", std::to_string(peak));
  EXPECT_GT(peak, 0u);
  EXPECT_LT(peak, limit) << "peak RSS " << peak << " > filter " << full.filter_bytes << " + budget "
                         << kBudget << " + 64 MiB";
  std::printf("peak RSS %.1f MiB (limit %.1f MiB: filter %.1f + budget %.1f + 64)\n",
              peak / 1048576.0, limit / 1048576.0, full.filter_bytes / 1048576.0,
              kBudget / 1048576.0);
#endif
}

}  // namespace
}  // namespace sieve
