// Helpers shared by the end-to-end tests: a crawl's options for a loopback
// site, running the crawl in process, reading pages.jsonl, and running the
// real `crawl` binary.
#ifndef TESTS_E2E_E2E_UTIL_H_
#define TESTS_E2E_E2E_UTIL_H_

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "crawler/options.h"
#include "crawler/output.h"
#include "nlohmann/json.hpp"

namespace e2e {

// A fresh, empty directory under the system temp dir, unique per test.
std::string FreshDir(const std::string& name);

// Options for crawling a loopback test site fast: no delay, several
// connections per host, quiet, output in a fresh directory.
crawler::CrawlOptions FastOptions(const std::string& test_name);

// Runs a whole crawl in process (Crawler::Create + Run).
absl::StatusOr<crawler::CrawlSummary> Crawl(const crawler::CrawlOptions& options,
                                            const std::vector<std::string>& seeds);

// pages.jsonl of `out_dir`, one parsed object per line.
std::vector<nlohmann::json> ReadPages(const std::string& out_dir);
nlohmann::json ReadSummary(const std::string& out_dir);

// When the crawler started a page's transfer (its pages.jsonl fetched_at: the
// system clock truncated to the millisecond, so never later than the real
// start), on the steady clock the test site logs requests with. Nothing if
// the record has no readable fetched_at.
std::optional<std::chrono::steady_clock::time_point> FetchStart(const nlohmann::json& page);

// The same for any exchange in a --warc file (robots.txt has no pages.jsonl
// record): the WARC-Date, to the microsecond, of the first record of
// `warc_gz` whose WARC-Target-URI is `url`. Nothing if there is none.
std::optional<std::chrono::steady_clock::time_point> WarcFetchStart(const std::string& warc_gz,
                                                                    const std::string& url);

// "http://127.0.0.1:8080/p/7.html?x" -> "/p/7.html".
std::string PathOf(const std::string& url);

struct CommandResult {
  int exit_code = -1;
  long max_rss_kb = 0;  // the child's peak resident set (getrusage via wait4)
  std::string out;
  std::string err;
};

// Runs CRAWL_BIN_DIR/<program> with `args`, feeding `stdin_text`. With
// `time_limit_s` > 0 the program is killed (SIGALRM, exit code 142) if it
// runs longer: a test of a crawl that used to hang stays bounded.
CommandResult RunProgram(const std::string& program, const std::vector<std::string>& args,
                         const std::string& stdin_text = "", int time_limit_s = 0);

// Writes `text` to `dir`/`name` and returns the path.
std::string WriteFile(const std::string& dir, const std::string& name, const std::string& text);

}  // namespace e2e

#endif  // TESTS_E2E_E2E_UTIL_H_
