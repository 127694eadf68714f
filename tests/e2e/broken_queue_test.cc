// A crawl whose URL queue breaks (Sieve::Health: its spill
// directory cannot be written, or a spilled segment cannot be read back)
// stops rather than degrading: Run fails with a message naming the queue and
// the spill directory, summary.json says "error", every fetched page is in
// pages.jsonl, no final checkpoint replaces the last good one, and that one
// resumes.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "crawler/crawl.h"
#include "e2e/e2e_util.h"
#include "gtest/gtest.h"
#include "testsite/test_site.h"

namespace {

namespace fs = std::filesystem;

bool HasFile(const fs::path& dir) {
  std::error_code ec;
  for (const auto& entry : fs::recursive_directory_iterator(dir, ec)) {  // sieve-spill-*/
    if (entry.is_regular_file()) return true;
  }
  return false;
}

// Waits (bounded) until `dir` holds a spilled segment; true if it did.
bool WaitForSpill(const fs::path& spill_dir) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (HasFile(spill_dir)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST(BrokenQueue, AnUnusableSpillDirStopsTheCrawlAndTheLastCheckpointResumes) {
  testsite::SiteOptions site_options;
  site_options.pages = 2'000'000;  // generated on request
  site_options.links_per_page = 100;
  site_options.keep_request_log = false;
  auto site = testsite::TestSite::Start(site_options);
  ASSERT_TRUE(site.ok()) << site.status();

  crawler::CrawlOptions options = e2e::FastOptions("broken-queue");
  options.queue_memory = 1 << 20;  // spills after a few hundred pages
  // Only the first checkpoint (before any fetch): a later one would
  // hard-link spilled segments and fail on the broken directory first.
  options.checkpoint_every_s = 3600;
  options.max_pages = 50'000;  // a bound; the break comes long before
  options.state_dir = options.out_dir + "/state";
  auto crawl = crawler::Crawler::Create(options, {(*site)->RootUrl()});
  ASSERT_TRUE(crawl.ok()) << crawl.status();
  absl::StatusOr<crawler::CrawlSummary> result = absl::UnknownError("not run");
  std::thread runner([&] { result = (*crawl)->Run(); });
  const bool spilled = WaitForSpill(options.spill_dir);
  // The spill directory becomes a plain file: the next spill cannot create
  // its segment there, and a spilled segment cannot be read back.
  const fs::path moved = options.out_dir + "/spill.moved";
  fs::rename(options.spill_dir, moved);
  std::ofstream(options.spill_dir) << "not a directory\n";
  runner.join();
  ASSERT_TRUE(spilled) << "no spill within 60 s";

  ASSERT_FALSE(result.ok()) << "the crawl went on with a broken queue";
  EXPECT_NE(result.status().message().find("the URL queue: "), std::string::npos)
      << result.status();
  EXPECT_NE(result.status().message().find(options.spill_dir), std::string::npos)
      << result.status();
  const nlohmann::json summary = e2e::ReadSummary(options.out_dir);
  EXPECT_EQ(summary["stop_reason"], "error");
  const uint64_t fetched = summary["pages"].get<uint64_t>();
  EXPECT_EQ(e2e::ReadPages(options.out_dir).size(), fetched);
  EXPECT_LT(fetched, options.max_pages);

  // No final checkpoint was taken over the last good one, which resumes
  // (with the spill directory usable again).
  fs::remove(options.spill_dir);
  fs::remove_all(moved);
  crawl->reset();
  crawler::CrawlOptions resumed = options;
  resumed.resume = true;
  resumed.max_pages = 300;
  auto again = crawler::Crawler::Create(resumed, {});
  ASSERT_TRUE(again.ok()) << again.status();
  absl::StatusOr<crawler::CrawlSummary> after = (*again)->Run();
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->stop_reason, "max-pages");
  // Records written after that checkpoint stay (those pages were fetched),
  // the resumed crawl's follow them (docs/crawler.md, "Duplicate bound").
  EXPECT_EQ(e2e::ReadPages(options.out_dir).size(), fetched + after->pages);
}

}  // namespace
