// How CrawlOptions become the Fetcher's options: --fetch-threads threads,
// never more than --connections (a thread without a transfer is useless).
#include "../../../crawler/src/app/crawl_setup.h"

#include <string>

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

// The Sieve's overflow warnings (in the library's terms)
// reach a crawl's user in flags: no C++ name is left in any of the three.
TEST(SieveMessageInFlags, OverflowWarningsSpeakInFlags) {
  const std::string warn = SieveMessageInFlags(
      "sieve: the filter holds about 2100 distinct URLs, more than "
      "SieveOptions::expected_count = 1000; OverflowPolicy::kWarn keeps its memory at 1.2 KiB, "
      "... Use a larger SieveOptions::expected_count (at least 4200) or OverflowPolicy::kGrow");
  EXPECT_NE(warn.find("more than --expected 1000"), std::string::npos) << warn;
  EXPECT_NE(warn.find("--overflow warn keeps its memory"), std::string::npos) << warn;
  EXPECT_NE(warn.find("or --overflow grow"), std::string::npos) << warn;
  const std::string capped = SieveMessageInFlags(
      "OverflowPolicy::kGrow reached SieveOptions::filter_memory_max_bytes: ... as under "
      "OverflowPolicy::kWarn");
  EXPECT_EQ(capped, "--overflow grow reached --filter-memory-max: ... as under --overflow warn");
  for (const std::string& text : {warn, capped}) {
    EXPECT_EQ(text.find("::"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace crawler
