// How CrawlOptions become the Fetcher's options: --fetch-threads threads,
// never more than --connections (a thread without a transfer is useless).
#include "../../../crawler/src/app/crawl_setup.h"

#include "gtest/gtest.h"

namespace crawler {
namespace {

TEST(FetchOptionsOf, FetchThreadsAsAskedUpToTheConnections) {
  CrawlOptions options;
  EXPECT_EQ(FetchOptionsOf(options, {}).threads, 2);  // the default
  options.fetch_threads = 8;
  options.connections = 16;
  EXPECT_EQ(FetchOptionsOf(options, {}).threads, 8);
  EXPECT_EQ(FetchOptionsOf(options, {}).max_transfers, 16);
  options.connections = 3;
  EXPECT_EQ(FetchOptionsOf(options, {}).threads, 3);
}

}  // namespace
}  // namespace crawler
