// Runs the real `crawl` program against a loopback site, as a user would, and
// collects what it left behind: exit code, stderr, pages.jsonl by URL path,
// summary.json and the child's peak RSS.
#ifndef TESTS_E2E_BINARY_CRAWL_H_
#define TESTS_E2E_BINARY_CRAWL_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "e2e/e2e_util.h"
#include "nlohmann/json.hpp"
#include "testsite/test_site.h"

namespace e2e {

struct BinaryCrawl {
  CommandResult run;
  std::string out_dir;
  std::vector<nlohmann::json> pages;
  // Records by URL path ("/drip"); the last one wins when a path repeats.
  std::map<std::string, nlohmann::json> by_path;
  nlohmann::json summary;  // null when summary.json is missing

  // Peak RSS of the crawl in MB.
  double PeakRssMb() const { return static_cast<double>(run.max_rss_kb) / 1024.0; }
  // Records whose URL path starts with `prefix`.
  int CountWithPrefix(const std::string& prefix) const;
};

// Fast, quiet loopback flags for a crawl in `dir`: seeds written to
// DIR/seeds.txt, --out DIR/out, no delay, 8 connections, robots off, 3 s
// timeout, 10 ms retry back-off.
std::vector<std::string> LoopbackCrawlFlags(const std::string& dir,
                                            const std::vector<std::string>& seeds);

// Runs `crawl` with LoopbackCrawlFlags in a fresh directory, then `extra`
// (later flags win); killed after `time_limit_s` seconds when > 0 (RunProgram).
BinaryCrawl RunCrawlBinary(const std::string& test_name, const std::vector<std::string>& seeds,
                           const std::vector<std::string>& extra = {}, int time_limit_s = 0);

// RunCrawlBinary without --quiet, so that info logs (the end line, "waiting
// for ...") reach run.err.
BinaryCrawl RunCrawlBinaryWithLogs(const std::string& test_name,
                                   const std::vector<std::string>& seeds,
                                   const std::vector<std::string>& extra = {},
                                   int time_limit_s = 0);

// A 30-page testsite with `options` (its odd cases), or null after a failure.
std::unique_ptr<testsite::TestSite> StartSmallSite(testsite::SiteOptions options);

// Exit 0, the crawl drained, and every page of the generated site fetched
// exactly once.
void ExpectSiteCrawled(const testsite::TestSite& site, const BinaryCrawl& crawl);

}  // namespace e2e

#endif  // TESTS_E2E_BINARY_CRAWL_H_
