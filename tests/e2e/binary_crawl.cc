#include "e2e/binary_crawl.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_join.h"

namespace e2e {

int BinaryCrawl::CountWithPrefix(const std::string& prefix) const {
  int n = 0;
  for (const auto& page : pages) n += PathOf(page["url"].get<std::string>()).rfind(prefix, 0) == 0;
  return n;
}

std::vector<std::string> LoopbackCrawlFlags(const std::string& dir,
                                            const std::vector<std::string>& seeds) {
  return {"--seeds",
          WriteFile(dir, "seeds.txt", absl::StrJoin(seeds, "\n") + "\n"),
          "--out",
          dir + "/out",
          "--spill-dir",
          dir + "/spill",
          "--expected",
          "100000",
          "--fp-rate",
          "0.0001",
          "--delay",
          "0",
          "--per-host",
          "8",
          "--connections",
          "8",
          "--robots",
          "off",
          "--timeout",
          "3s",
          "--connect-timeout",
          "2s",
          "--retry-backoff",
          "10ms",
          "--quiet"};
}

namespace {

BinaryCrawl RunWithFlags(const std::string& test_name, const std::vector<std::string>& seeds,
                         const std::vector<std::string>& extra, int time_limit_s, bool quiet) {
  const std::string dir = FreshDir(test_name);
  BinaryCrawl crawl;
  crawl.out_dir = dir + "/out";
  std::vector<std::string> args = LoopbackCrawlFlags(dir, seeds);
  if (!quiet) args.erase(std::remove(args.begin(), args.end(), "--quiet"), args.end());
  args.insert(args.end(), extra.begin(), extra.end());
  crawl.run = RunProgram("crawl", args, "", time_limit_s);
  if (std::filesystem::exists(crawl.out_dir + "/pages.jsonl"))
    crawl.pages = ReadPages(crawl.out_dir);
  for (const auto& page : crawl.pages) crawl.by_path[PathOf(page["url"].get<std::string>())] = page;
  if (std::filesystem::exists(crawl.out_dir + "/summary.json")) {
    crawl.summary = ReadSummary(crawl.out_dir);
  }
  return crawl;
}

}  // namespace

BinaryCrawl RunCrawlBinary(const std::string& test_name, const std::vector<std::string>& seeds,
                           const std::vector<std::string>& extra, int time_limit_s) {
  return RunWithFlags(test_name, seeds, extra, time_limit_s, /*quiet=*/true);
}

BinaryCrawl RunCrawlBinaryWithLogs(const std::string& test_name,
                                   const std::vector<std::string>& seeds,
                                   const std::vector<std::string>& extra, int time_limit_s) {
  return RunWithFlags(test_name, seeds, extra, time_limit_s, /*quiet=*/false);
}

std::unique_ptr<testsite::TestSite> StartSmallSite(testsite::SiteOptions options) {
  options.pages = 30;
  auto site = testsite::TestSite::Start(options);
  EXPECT_TRUE(site.ok()) << site.status();
  return site.ok() ? std::move(*site) : nullptr;
}

void ExpectSiteCrawled(const testsite::TestSite& site, const BinaryCrawl& crawl) {
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
  for (const std::string& url : site.PageUrls()) {
    EXPECT_EQ(site.RequestCount(PathOf(url)), 1u) << url;
  }
  EXPECT_EQ(crawl.summary["stop_reason"], "drained");
}

}  // namespace e2e
