// HostStats: bounded at kMaxTracked authorities, and its bytes per host at
// that bound (printed for docs/crawler.md), measured as the heap in use
// (mallinfo2: arena and mmapped chunks) before and after records of 150,000
// hosts.
#include "../../../crawler/src/app/host_stats.h"

#include <malloc.h>

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

int64_t HeapInUse() {
  malloc_trim(0);
  const struct mallinfo2 info = mallinfo2();
  return static_cast<int64_t>(info.uordblks + info.hblkhd);  // heap chunks + mmapped ones
}

TEST(HostStats, AtMostMaxTrackedHostsAndTheirBytesPerHost) {
  const int64_t before = HeapInUse();
  HostStats hosts;
  constexpr int kHosts = 150'000;
  for (int i = 0; i < kHosts; ++i) {
    PageRecord record;
    record.url = absl::StrCat("http://host", i, ".example.test/");
    record.status = 200;
    hosts.Add(record);
  }
  const double per_host =
      static_cast<double>(HeapInUse() - before) / static_cast<double>(HostStats::kMaxTracked);
  std::printf("HostStats: %.1f bytes per tracked host (%zu tracked)\n", per_host,
              HostStats::kMaxTracked);
  ::testing::Test::RecordProperty("bytes_per_host", absl::StrCat(per_host));
  EXPECT_LT(per_host, 260.0);  // the header states ~200 (map slot, name, counters)
  CrawlSummary summary;
  hosts.Fill({}, &summary, HostStats::kMaxTracked);
  EXPECT_EQ(summary.hosts.size(), HostStats::kMaxTracked);
  EXPECT_EQ(summary.hosts_not_listed, kHosts - static_cast<int64_t>(HostStats::kMaxTracked));
}

}  // namespace
}  // namespace crawler
