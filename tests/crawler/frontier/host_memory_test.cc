// Bytes per host: the Frontier's per-authority state stays small and
// bounded when a crawl meets 1e5 hosts (the web has many more). Measured as
// the growth of the heap in use (mallinfo2) from 5e4 to 1e5 hosts whose URLs
// went through the Frontier, so what it shows is what the Frontier keeps per
// host for the whole crawl: nothing without --max-pages-per-host, a
// HostLimitCounts entry with it.
// The figures are printed (and recorded as test properties) for
// docs/crawler.md.
#include <malloc.h>

#include <cstdio>
#include <string>
#include <vector>

#include "../../../crawler/src/frontier/host_limit_counts.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "crawler/frontier.h"
#include "crawler/polite_policy.h"
#include "gtest/gtest.h"
#include "sieve/sieve.h"

namespace crawler {
namespace {

constexpr int kHosts = 100'000;
const absl::Time kMemoryT0 = absl::FromUnixSeconds(2'000'000);

int64_t HeapInUse() {
  malloc_trim(0);
  const struct mallinfo2 info = mallinfo2();
  return static_cast<int64_t>(info.uordblks + info.hblkhd);  // heap chunks + mmapped ones
}

// Bytes per host the Frontier (with PolitePolicy) still holds after every
// URL of kHosts hosts (one each) was offered, handed out and Done.
double BytesPerHostAfterCrawl(uint64_t max_pages_per_host) {
  sieve::SieveOptions sieve_options;
  sieve_options.expected_count = 2 * kHosts;
  // The Sieve's false-positive sample (docs/fp-rate.md) keeps the hash of
  // every URL until it holds 2^17 (~18 bytes each, 2.4 MB at most): bounded,
  // and not per-host state. Off here, so the slope is the Frontier's alone.
  sieve_options.fp_sample_max_urls = 0;
  auto sieve = sieve::Sieve::Create(sieve_options);
  EXPECT_TRUE(sieve.ok());
  FrontierOptions options;
  options.delay = absl::ZeroDuration();
  options.max_pages_per_host = max_pages_per_host;
  auto policy = PolitePolicy::Create(PolitePolicyOptions{});
  EXPECT_TRUE(policy.ok());
  auto frontier = Frontier::Create(sieve->get(), options, std::move(*policy));
  EXPECT_TRUE(frontier.ok());
  FetchOutcome ok;
  int64_t at_half = 0;
  ok.status = 200;
  size_t done = 0;
  for (int batch = 0; batch < kHosts / 1000; ++batch) {
    if (batch == kHosts / 2000) at_half = HeapInUse();
    std::vector<std::string> urls;
    for (int i = 0; i < 1000; ++i)
      urls.push_back(absl::StrCat("http://h", batch * 1000 + i, ".test/"));
    (*frontier)->OfferLinks(urls, 1, "http://seed.test/");
    // Time moves on (a minute a batch), so the hosts' delays pass and the
    // host queues sweep idle authorities, as in a crawl.
    const absl::Time now = kMemoryT0 + absl::Minutes(batch);
    while (auto url = (*frontier)->Next(now)) {
      (*frontier)->Release(*url, ok, now);
      (*frontier)->Done(*url);
      ++done;
    }
  }
  EXPECT_GE(done, static_cast<size_t>(kHosts) * 999 / 1000);  // a few filter false positives
  // The slope between 5e4 and 1e5 hosts: what each further host adds (the
  // buffers sized by the hosts active at once are there at both points).
  const double per_host = static_cast<double>(HeapInUse() - at_half) / (kHosts / 2);
  const FrontierStats stats = (*frontier)->Stats();
  std::printf(
      "max_pages_per_host=%llu: %.1f bytes/host after %d hosts (host limit counts %zu bytes)\n",
      static_cast<unsigned long long>(max_pages_per_host), per_host, kHosts,
      stats.host_limit_bytes);
  return per_host;
}

TEST(HostMemory, NothingKeptPerHostWithoutAPerHostLimit) {
  const double per_host = BytesPerHostAfterCrawl(0);
  ::testing::Test::RecordProperty("bytes_per_host", absl::StrCat(per_host));
  // Idle authorities are swept from the host queues and the policy; what
  // remains is allocator and table-growth noise (12 bytes/host measured).
#ifndef CRAWL_SANITIZED  // the sanitizers' allocators do not report to mallinfo2
  EXPECT_LT(per_host, 20.0);
#endif
}

TEST(HostMemory, PerHostLimitCostsAFewDozenBytesPerHost) {
  const double per_host = BytesPerHostAfterCrawl(100);
  ::testing::Test::RecordProperty("bytes_per_host", absl::StrCat(per_host));
#ifndef CRAWL_SANITIZED       // the sanitizers' allocators do not report to mallinfo2
  EXPECT_LT(per_host, 48.0);  // HostLimitCounts: 17 bytes a slot at 50-88% load, + noise
  EXPECT_GT(per_host, 8.0);   // it does count them
#endif
}

TEST(HostLimitCounts, ExactUpToTheCapThenSharedAndNeverUnder) {
  HostLimitCounts counts;
  for (int i = 0; i < 3; ++i) counts.Increment("http://a");
  EXPECT_EQ(counts.Get("http://a"), 3u);
  EXPECT_EQ(counts.Get("http://b"), 0u);
  // Fill to the cap; later authorities share buckets, whose counts are at
  // least their own (a host may be refused early, never let past its limit).
  for (size_t i = counts.exact(); i < HostLimitCounts::kMaxExact; ++i) {
    counts.RestoreExact(StableAuthorityHash(absl::StrCat("filler", i)), 1);
  }
  ASSERT_EQ(counts.exact(), HostLimitCounts::kMaxExact);
  const size_t at_cap = counts.MemoryBytes();
  EXPECT_LT(at_cap, size_t{40} << 20);  // the stated ~36 MB bound
  for (int i = 0; i < 1000; ++i) {
    for (int k = 0; k <= i % 5; ++k) counts.Increment(absl::StrCat("http://late", i));
  }
  EXPECT_EQ(counts.exact(), HostLimitCounts::kMaxExact);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_GE(counts.Get(absl::StrCat("http://late", i)), static_cast<uint64_t>(i % 5 + 1));
  }
  EXPECT_EQ(counts.MemoryBytes(), at_cap + HostLimitCounts::kSharedBuckets * sizeof(uint32_t));
  EXPECT_EQ(counts.Get("http://a"), 3u);
}

TEST(HostLimitCounts, StableHashIsFrozen) {
  // Checkpoints keep counts by this hash: it must not change between builds.
  EXPECT_EQ(StableAuthorityHash(""), 14695981039346656037ull);
  EXPECT_EQ(StableAuthorityHash("a"), 0xaf63dc4c8601ec8cull);
}

}  // namespace
}  // namespace crawler
