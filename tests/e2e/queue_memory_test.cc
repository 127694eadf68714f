// The crawl's memory does not grow with its queue: every per-URL datum
// (depth, parent, redirect hops) travels in the Sieve's queue records, so
// --queue-memory bounds it and the rest spills to disk. A site whose pages
// carry 100 links makes the queue grow ~100 URLs per page fetched; two crawls
// of it, one fetching 10x the pages of the other, must peak at about the same
// RSS. The side table this replaced cost ~520 bytes of RAM per queued URL
// (measured with that build: 59 MB at 58k queued, 297 MB at 513k queued,
// --queue-memory 1MiB), so the larger crawl would peak ~125 MB higher: far
// beyond the slack. With payloads: 31.9 MB at 29k queued, 32.3 MB at 276k.
#include <string>
#include <vector>

#include "e2e/binary_crawl.h"
#include "gtest/gtest.h"
#include "testsite/test_site.h"

namespace {

struct FanOutRun {
  double peak_rss_mb = 0;
  int64_t queued = 0;
  int64_t filter_bytes = 0;
};

FanOutRun CrawlFanOut(const testsite::TestSite& site, const std::string& name, int pages) {
  e2e::BinaryCrawl crawl =
      e2e::RunCrawlBinary(name, {site.RootUrl()},
                          {"--expected", "1000000", "--queue-memory", "1MiB", "--max-pages",
                           std::to_string(pages), "--checkpoint-every", "2s"});
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
  FanOutRun run;
  run.peak_rss_mb = crawl.PeakRssMb();
  if (!crawl.summary.is_null()) {
    run.queued = crawl.summary["queued_at_end"].get<int64_t>();
    run.filter_bytes = crawl.summary["filter_bytes"].get<int64_t>();
  }
  return run;
}

TEST(QueueMemory, PeakRssStaysFlatWhileTheQueueGrowsTenfold) {
  testsite::SiteOptions options;
  options.pages = 2'000'000;  // generated on request: nothing is held per page
  options.links_per_page = 100;
  options.keep_request_log = false;
  auto site = testsite::TestSite::Start(options);
  ASSERT_TRUE(site.ok()) << site.status();

  const FanOutRun small = CrawlFanOut(**site, "queue_memory_small", 300);
  const FanOutRun large = CrawlFanOut(**site, "queue_memory_large", 3000);
  ASSERT_GT(small.queued, 20'000);
  ASSERT_GE(large.queued, 8 * small.queued) << "the queue did not grow ~10x";

#ifndef CRAWL_SANITIZED
  // ASan/TSan's shadow memory and quarantine make RSS meaningless there (as in
  // tests/sieve/spill_rss_test.cc): the crawls and queue growth above still
  // run under them, the RSS bounds only in the plain build.
  // Absolute: filter + queue budget + a fixed allowance for the program
  // (threads, curl, parsers, buffers; ~50 MB measured at 300 pages).
  const double budget_mb = static_cast<double>(large.filter_bytes) / (1 << 20) + 1.0;
  EXPECT_LT(large.peak_rss_mb, budget_mb + 150.0)
      << "filter+queue " << budget_mb << " MB, queued " << large.queued;
  // Relative: ~10x the queue (~250k more URLs) costs less than 40 MB more,
  // i.e. < 160 bytes per extra queued URL, with generous slack for
  // allocator noise; the old side table needed ~500.
  EXPECT_LT(large.peak_rss_mb - small.peak_rss_mb, 40.0)
      << "small: " << small.peak_rss_mb << " MB at " << small.queued
      << " queued; large: " << large.peak_rss_mb << " MB at " << large.queued << " queued";
#endif
}

// A filter sized for --expected 1e9 (1.45 GB) takes RAM as URLs touch it, a
// page at a time: 1,000 seeds cost a few MB before the first request. With
// transparent huge pages each seed's first touch of a 2 MiB region had the
// kernel zero all of it: ~1.1 GB resident and 1.4-2 s of zeroing before the
// first request (bench/scale's "first request").
TEST(QueueMemory, ABillionUrlFilterIsNotZeroedWholeForAThousandSeeds) {
  testsite::SiteOptions options;
  options.pages = 2000;
  options.keep_request_log = false;
  auto site = testsite::TestSite::Start(options);
  ASSERT_TRUE(site.ok()) << site.status();
  std::vector<std::string> seeds = (*site)->PageUrls();
  ASSERT_GE(seeds.size(), 1000u);
  seeds.resize(1000);
  e2e::BinaryCrawl crawl =
      e2e::RunCrawlBinary("queue_memory_1e9", seeds, {"--expected", "1e9", "--max-pages", "1"});
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
  ASSERT_FALSE(crawl.summary.is_null());
  EXPECT_GT(crawl.summary["filter_bytes"].get<int64_t>(), int64_t{1'400'000'000});
  EXPECT_GE(crawl.summary["queued_at_end"].get<int64_t>(), 999);
#ifndef CRAWL_SANITIZED
  // The program itself takes ~50 MB (see above); the touched pages ~4 MB.
  EXPECT_LT(crawl.PeakRssMb(), 300.0);
#endif
}

}  // namespace
