// A `crawl` process of a fleet test, started without waiting so that the
// test can kill it mid-crawl (the Redis frontier tests' SIGKILL cases):
// one page at a time (--per-host 1 --connections 1), robots off, quiet,
// output in its own fresh directory.
//
//   CrawlChild child = StartCrawlChild("fleet-0", {site->RootUrl()}, frontier);
//   kill(child.pid, SIGKILL);
//   std::set<std::string> urls = LoggedUrls(child.out_dir);
//
// Threading: one thread.
#ifndef TESTS_E2E_CRAWL_CHILD_H_
#define TESTS_E2E_CRAWL_CHILD_H_

#include <sys/types.h>

#include <set>
#include <string>
#include <vector>

namespace e2e {

struct CrawlChild {
  pid_t pid = -1;
  std::string out_dir;
};

// Forks CRAWL_BIN_DIR/crawl on `seeds` with --frontier `frontier` (and
// `extra` flags after it); its stdout and stderr go to /dev/null.
CrawlChild StartCrawlChild(const std::string& name, const std::vector<std::string>& seeds,
                           const std::string& frontier, const std::vector<std::string>& extra = {});

// The URLs a crawl logged in pages.jsonl (a killed crawl's file may end in
// a torn line: it is left out).
std::set<std::string> LoggedUrls(const std::string& out_dir);

}  // namespace e2e

#endif  // TESTS_E2E_CRAWL_CHILD_H_
