// From CrawlOptions to a crawl's parts: the one place where the command
// line's knobs are translated into each stage's own options (so each room
// keeps its own Options), and where the stages are built and wired to each
// other (BuildCrawlParts). The scheduler (Crawler::Impl) only drives them.
//
//   absl::StatusOr<std::unique_ptr<CrawlParts>> parts =
//       BuildCrawlParts(options, seeds, {on_fetched, on_parsed, wake, stop});
//   if (!parts.ok()) return parts.status();  // usage (exit 2) or I/O (exit 1)
//   url = (*parts)->frontier->Next(now); (*parts)->fetcher->Submit(...); ...
//
// Threading: free functions, from one thread; CrawlParts is as thread-safe
// as each of its members.
#ifndef CRAWLER_APP_CRAWL_SETUP_H_
#define CRAWLER_APP_CRAWL_SETUP_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "app/checkpointer.h"
#include "app/crawl_stats.h"
#include "app/dir_lock.h"
#include "app/duplicate_content_guard.h"
#include "app/page_processor.h"
#include "app/parse_pool.h"
#include "app/previous_crawl.h"
#include "app/robots_wiring.h"
#include "app/trap_guard.h"
#include "app/warc_sink.h"
#include "crawler/fetch.h"
#include "crawler/frontier.h"
#include "crawler/link_filter.h"
#include "crawler/options.h"
#include "crawler/output.h"
#include "crawler/polite_policy.h"
#include "crawler/retry_queue.h"
#include "sieve/log.h"
#include "sieve/options.h"
#include "sieve/sieve.h"

namespace crawler {

// Parses and normalizes each seed (NormalizeForSeen); an invalid seed is an
// InvalidArgumentError naming it. An empty list is an error too.
absl::StatusOr<std::vector<std::string>> NormalizeSeeds(const std::vector<std::string>& seeds,
                                                        const CrawlOptions& options);

// True for loopback, private (RFC 1918), link-local and unique-local literal
// addresses and "localhost": block_private "auto" allows them only when a
// seed is one.
bool IsPrivateHost(std::string_view host);

// The Sieve's messages (sieve/log.h) into the crawler's log (spdlog), with
// the library's option names turned into the crawl flags that set them
// ("SieveOptions::expected_count" -> "--expected").
sieve::LogSink CrawlSieveLogSink();
// The crawl flags' words for a Sieve message.
std::string SieveMessageInFlags(std::string_view message);

sieve::SieveOptions SieveOptionsOf(const CrawlOptions& options);
FrontierOptions FrontierOptionsOf(const CrawlOptions& options);
FetchOptions FetchOptionsOf(const CrawlOptions& options, const std::vector<std::string>& seeds);
// --revisit-min and --revisit-max.
RevisitBounds RevisitBoundsOf(const CrawlOptions& options);

// A fetched page on its way to a parser thread.
struct ParseJob {
  CrawlUrl url;
  FetchResult result;
  int attempts = 1;  // fetches of url.url, retries included (see RetryQueue)
};

// The scheduler's side of the wiring: what the built parts call back into.
// Each must stay callable until the parts are destroyed.
struct SchedulerHooks {
  // An answer to a page request (not robots.txt's nor a sitemap's), on a
  // fetcher thread, possibly concurrently with itself.
  std::function<void(FetchResult&& result)> on_fetched;
  // A job the scheduler submitted to `parsers`, on a parser thread.
  std::function<void(ParseJob&& job)> on_parsed;
  // Wakes the scheduler: the robots gate has URLs or requests to hand out.
  std::function<void()> wake;
  // Stops the crawl: a robots.txt or sitemap answer failed to reach the
  // WARC file (the sink logged why).
  std::function<void()> stop;
};

// What a crawl is made of. Declared so that each member outlives the members
// below it, which call it. Held by address (BuildCrawlParts returns it on the
// heap): the parts reach each other through it, e.g. the robots gate submits
// through `fetcher`, which is built last.
struct CrawlParts {
  CrawlParts() = default;
  CrawlParts(const CrawlParts&) = delete;
  CrawlParts& operator=(const CrawlParts&) = delete;
  ~CrawlParts() { StopThreads(); }

  // Stops the fetcher (no grace: running transfers end "aborted") and runs
  // the parsers' backlog, so no SchedulerHooks callback runs after it. The
  // owner of the hooks calls it before it destroys what they use.
  // Idempotent; never from a hook (it joins their threads).
  void StopThreads();

  // First: held until everything below has flushed and closed its files.
  std::vector<std::unique_ptr<DirLock>> dir_locks;  // --out and --state
  std::unique_ptr<sieve::Sieve> sieve;              // new, or the checkpoint's
  std::unique_ptr<Frontier> frontier;
  PolitePolicy* policy = nullptr;  // owned by frontier
  std::unique_ptr<LinkFilter> filter;
  std::unique_ptr<TrapGuard> traps;                   // before processor, which uses it
  std::unique_ptr<DuplicateContentGuard> duplicates;  // the same
  std::unique_ptr<PageProcessor> processor;
  std::unique_ptr<PageLog> log;    // pages.jsonl
  std::unique_ptr<WarcSink> warc;  // --warc; null without it
  CrawlStats stats;
  std::unique_ptr<Checkpointer> checkpointer;  // checkpoint and resume (--state)
  std::unique_ptr<RetryQueue> retries;         // transient failures waiting for their back-off
  RobotsParts robots;  // robots.txt gate; passes everything with --robots off
  std::unique_ptr<ParsePool<ParseJob>> parsers;  // runs SchedulerHooks::on_parsed
  std::unique_ptr<Fetcher> fetcher;  // runs SchedulerHooks::on_fetched; uses everything above
  int64_t pages_at_start = 0;        // restored on --resume: not this run's
};

// Builds and wires every part of a crawl, in the order the crawl needs:
// locks --out and --state (one crawl per directory), refuses an --out that
// holds an earlier crawl's records unless --fresh or --resume, opens the
// Sieve (new or the checkpoint's), the Frontier, --recrawl's previous pages,
// the seeds' filter, the page processor, the Checkpointer (restoring a
// checkpoint on --resume), pages.jsonl, the WARC file; offers the seeds;
// then the robots gate (which queues --sitemap URLs), the retry queue, the
// parsers and the Fetcher. Warns about --no-check-certificate and an
// --fp-rate above 0.5. `seeds` are as given (not yet normalized); with none,
// --recrawl's depth-0 pages or else the --sitemap URLs stand for them.
// Nothing is fetched yet: the first request is the scheduler's. Errors are
// usage or configuration errors (InvalidArgument, exit 2) or I/O; what was
// built before the error is released (locks included).
absl::StatusOr<std::unique_ptr<CrawlParts>> BuildCrawlParts(const CrawlOptions& options,
                                                            const std::vector<std::string>& seeds,
                                                            const SchedulerHooks& hooks);

}  // namespace crawler

#endif  // CRAWLER_APP_CRAWL_SETUP_H_
