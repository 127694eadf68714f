// The crawl program's exit status from its summary (crawler/cli.h's table).
#include "../../../crawler/src/app/exit_status.h"

#include "crawler/cli.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

CrawlSummary Fetched() {
  CrawlSummary s;
  s.pages = 10;
  s.status_counts[200] = 10;
  s.stop_reason = "drained";
  return s;
}

TEST(CrawlExitStatus, SomethingFetchedIsZero) {
  EXPECT_EQ(CrawlExitStatus(Fetched(), 0.01).code, kExitOk);
  CrawlSummary not_found = Fetched();
  not_found.status_counts = {{404, 1}};  // a response, even an error one, is a fetch
  EXPECT_EQ(CrawlExitStatus(not_found, 0.01).code, kExitOk);
}

TEST(CrawlExitStatus, NoResponseAtAllIsThreeAndNamesTheErrors) {
  CrawlSummary s;
  s.pages = 1;
  s.status_counts[0] = 1;
  s.errors_by_kind["connect"] = 1;
  s.stop_reason = "drained";
  const ExitStatus status = CrawlExitStatus(s, 0.01);
  EXPECT_EQ(status.code, kExitNothingFetched);
  EXPECT_NE(status.reason.find("connect x1"), std::string::npos) << status.reason;
}

TEST(CrawlExitStatus, AFleetProcessHandedNoUrlIsZeroButOneWhoseFetchesFailedIsThree) {
  CrawlSummary none;  // no record at all: the fleet's others held every host
  EXPECT_EQ(CrawlExitStatus(none, 0.01, /*shared_frontier=*/true).code, kExitOk);
  EXPECT_EQ(CrawlExitStatus(none, 0.01, /*shared_frontier=*/false).code, kExitNothingFetched);
  CrawlSummary failed;
  failed.pages = 2;
  failed.status_counts[0] = 2;
  failed.errors_by_kind["connect"] = 2;
  EXPECT_EQ(CrawlExitStatus(failed, 0.01, /*shared_frontier=*/true).code, kExitNothingFetched);
}

TEST(CrawlExitStatus, LossOverTheThresholdByTheLowerBoundIsFour) {
  CrawlSummary s = Fetched();
  MeasuredLoss m;
  m.accepted = 1000;
  m.sampled_false_positives = 40;
  m.wrongly_dropped = 40;
  m.wrongly_dropped_low = 25;  // 2.4% of 1040 new URLs: over 1%
  m.wrongly_dropped_high = 60;
  s.fp_measured = m;
  EXPECT_EQ(CrawlExitStatus(s, 0.01).code, kExitUrlsLost);
  EXPECT_EQ(CrawlExitStatus(s, 0.02).code, kExitOk);  // threshold 2p = 4%: 25 < 41.6
  s.fp_measured->wrongly_dropped_low = 5;             // the interval reaches under 1%: not sure
  EXPECT_EQ(CrawlExitStatus(s, 0.01).code, kExitOk);
}

}  // namespace
}  // namespace crawler
