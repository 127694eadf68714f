// A `crawl` process of a fleet test, started without waiting so that the
// test can kill it mid-crawl (the Redis frontier tests' SIGKILL cases):
// LoopbackCrawlFlags (binary_crawl.h) with one page at a time (--per-host 1
// --connections 1), output in its own fresh directory.
//
//   std::vector<CrawlChild> children = {StartCrawlChild("fleet-0", seeds, frontier), ...};
//   KillHolderAndAwaitTheOthers(children, holder);  // holder: a Redis client id
//   std::set<std::string> urls = LoggedUrls(children);
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

// The URLs the children logged in their pages.jsonl files (a killed
// crawl's file may end in a torn line: it is left out).
std::set<std::string> LoggedUrls(const std::vector<CrawlChild>& children);

// SIGKILLs the child whose pid is in `holder` (a RedisSieve client id,
// "hostname:pid:nonce", as the frontier's host owners name it), moves it to
// children[0] and reaps it, then waits for the others: each must exit 0
// with stop_reason "drained" (GoogleTest failures otherwise).
void KillHolderAndAwaitTheOthers(std::vector<CrawlChild>& children, const std::string& holder);

}  // namespace e2e

#endif  // TESTS_E2E_CRAWL_CHILD_H_
