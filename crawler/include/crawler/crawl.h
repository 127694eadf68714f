// Crawler: one crawl, end to end. Seeds go through the LinkFilter into the
// Frontier (and so the Sieve); a scheduler thread hands ready URLs to the
// Fetcher (libcurl, its own threads); each finished fetch is queued for a pool
// of parser threads, which extract links (Gumbo), filter them, offer them to
// the Frontier and append the page's record to pages.jsonl. The crawl ends
// when the Sieve is drained, the host queues are empty and nothing is being
// fetched or parsed (or at --max-pages, or on RequestStop).
//
//   auto crawl = crawler::Crawler::Create(options, seeds);   // normalized or not
//   if (!crawl.ok()) return 2;                                // bad options/seeds
//   absl::StatusOr<crawler::CrawlSummary> summary = (*crawl)->Run();  // blocks
//
// Why parsing has its own threads: Gumbo is the bottleneck (~10 MB/s a core);
// running it on the curl threads would stall every transfer of that thread.
// Fetch callbacks only hand the body over (a move), so fetching and the
// bookkeeping stay out of the parsers' way.
//
// Threading: Run is called once, from one thread. RequestStop and Progress are
// safe from any thread (not from a signal handler: see signals in app/).
#ifndef CRAWLER_CRAWL_H_
#define CRAWLER_CRAWL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "crawler/options.h"
#include "crawler/output.h"

namespace crawler {

// A live snapshot for the progress line.
struct CrawlProgress {
  int64_t pages = 0;  // records written
  // Of those, written by this run (a resumed crawl's restored pages are not);
  // the rate is this over elapsed_s. -1: same as pages.
  int64_t pages_this_run = -1;
  int64_t errors = 0;  // records with an error
  double elapsed_s = 0;
  int64_t queued = 0;     // in the Sieve plus the host queues
  int64_t in_flight = 0;  // being fetched
  int64_t parsing = 0;    // fetched, waiting for or in a parser
  // The Sieve's estimate of distinct URLs; null when the filter is saturated.
  std::optional<double> seen_estimate = 0.0;
  double filter_fill = 0;
  double filter_fp_rate = 0;
  // For bench/scale: where the crawl's memory and disk go, from
  // the Sieve's and the Frontier's Stats().
  uint64_t accepted = 0;            // URLs the Sieve took as new, whole crawl
  uint64_t passed_over = 0;         // URLs the Frontier gave back to the Sieve's tail
  uint64_t filter_bytes = 0;        // the Bloom filter's bit arrays
  uint64_t queue_memory_bytes = 0;  // queued URLs held in RAM
  uint64_t queue_disk_bytes = 0;    // queued URLs in spill files
  // The last checkpoint of this run (--state): wall time and bytes written;
  // 0 when none yet.
  int64_t last_checkpoint_ms = 0;
  int64_t last_checkpoint_bytes = 0;
  std::optional<MeasuredLoss> fp_measured;  // null when not measured
  // While URLs are queued and nothing is in flight: the timer the crawl waits
  // for and until when ("Retry-After of a 503 (2s) of http://h:81 until
  // 14:05:09.120 UTC"); "" otherwise.
  std::string waiting_for;
};

// "1234 pages  312.0/s  queued 5678  in flight 64  seen ~7000  filter 3.1% p=0.0001  errors 2
//  accepted 7100  passed over 0  filter_bytes 1198...  queue_ram 1234  queue_disk 0"
// A saturated filter shows "seen ? (filter saturated)"; a measured loss adds
// "  wrongly dropped ~120 [95..150] (measured p=0.021)" once a sampled URL was
// wrongly dropped. Every number shown is finite and >= 0.
// With `width` > 0 (a terminal's columns) the line keeps the fields that fit
// in that order (pages, rate, queued, in flight, errors and what an idle crawl
// waits for first); 0 keeps them all (logs, --log-format json).
std::string FormatProgress(const CrawlProgress& progress, size_t width = 0);

// "wrongly dropped ~120 [95..150] (measured p=0.021 [0.017..0.026])", or "" when
// nothing measured was dropped (negligible): the end-of-crawl line's part too.
std::string FormatMeasuredLoss(const std::optional<MeasuredLoss>& measured);

class Crawler {
 public:
  // Validates the options, normalizes the seeds (an invalid one is an error:
  // the seeds file reader already skipped bad lines), creates the Sieve,
  // Frontier, output directory and Fetcher. Errors here are usage or
  // configuration errors (exit 2) unless they are I/O (exit 1).
  static absl::StatusOr<std::unique_ptr<Crawler>> Create(const CrawlOptions& options,
                                                         const std::vector<std::string>& seeds);
  ~Crawler();
  Crawler(const Crawler&) = delete;
  Crawler& operator=(const Crawler&) = delete;

  // Crawls until done, writes summary.json and returns what it holds. Fails
  // on an output write error, and after writing summary.json (stop_reason
  // "error") when a checkpoint fails or the URL queue breaks
  // (Sieve::Health: it cannot spill, or lost a spilled segment); then no
  // final checkpoint is taken, so the last good one stays for --resume.
  absl::StatusOr<CrawlSummary> Run();

  // Stop taking new URLs; in-flight transfers get a few seconds, then are
  // abandoned (recorded with error "aborted"). Run returns after that.
  void RequestStop();

  CrawlProgress Progress() const;

  // Where --metrics serves (crawler/metrics_server.h), "http://HOST:PORT/metrics"
  // with the port actually bound (useful with port 0); "" without --metrics.
  // The endpoint answers until the Crawler is destroyed, so a scrape after
  // Run returned reads the final counters, equal to summary.json's.
  std::string MetricsUrl() const;

  class Impl;

 private:
  explicit Crawler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Reads the seeds file of `options` (problems logged as warnings, fatal with
// --strict), runs the crawl and returns the summary. No signal handling.
absl::StatusOr<CrawlSummary> RunCrawl(const CrawlOptions& options);

// The whole `crawl` program (main.cc calls it with main's arguments):
//   crawl [options]              the crawl (SIGINT/SIGTERM stop it gracefully)
//   crawl url BASE HREF          what the crawler would enqueue, or why not
//   crawl url --batch            BASE<TAB>HREF lines on stdin
//   crawl links [--base URL] [FILE]   the links extracted from a page
//   crawl completion bash        the bash completion script (cli.h)
// Returns the exit code (crawler/cli.h): 0 done, 1 runtime failure, 2
// usage/configuration, 3 nothing could be fetched, 4 too many URLs lost.
int CrawlProgramMain(int argc, const char* const* argv);

}  // namespace crawler

#endif  // CRAWLER_CRAWL_H_
