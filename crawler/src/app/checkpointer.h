// Checkpointer: the crawl's side of checkpoint and resume. It decides when a
// checkpoint is due, takes a consistent cut of the Sieve, the Frontier, the
// counters and pages.jsonl's length, and hands it to CrawlStateDir; and on
// --resume it opens the state and puts every part back.
//
// The cut: a parser thread appends a page's record, counts it and marks its
// URL Done under CommitScope() (a shared lock); a checkpoint takes the lock
// exclusively, so at that moment every Done URL has its record below the
// saved log length and in the counters, and every other URL the Sieve holds
// (queued, buffered, being fetched or parsed) is saved as queued. Links a
// page offered before its commit stay in the Sieve either way: a page not
// Done is fetched again on resume and its links are then seen.
//
// Cost: parsers wait while the Sieve is saved (its filter and queue written
// and fsynced: ~10 ms for the default 1.2 MB filter); fetch callbacks wait on
// the Frontier's lock for the same time. Fetching itself goes on. Each
// checkpoint logs its duration and bytes written at info level
// ("checkpoint N written in T ms, B bytes"); last_ms()/last_bytes() feed the
// summary's last_checkpoint_ms / last_checkpoint_bytes.
//
//   auto start = OpenCrawlStart(options);   // new or resumed Sieve
//   ... Checkpointer checkpointer(options, seeds, std::move(start->state), parts);
//   { auto commit = checkpointer.CommitScope(); log->Append(r); stats.Add(r); frontier->Done(u); }
//   checkpointer.TakeIfDue(elapsed);        // scheduler thread
//
// Threading: CommitScope from any thread; everything else from the
// scheduler thread.
#ifndef CRAWLER_APP_CHECKPOINTER_H_
#define CRAWLER_APP_CHECKPOINTER_H_

#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "app/crawl_stats.h"
#include "app/trap_guard.h"
#include "crawler/crawl_state.h"
#include "crawler/fetch.h"
#include "crawler/frontier.h"
#include "crawler/options.h"
#include "crawler/output.h"
#include "crawler/polite_policy.h"
#include "sieve/sieve.h"

namespace crawler {

// How a crawl begins: a new Sieve (state created, or none when
// options.state_dir is empty: checkpoints off), or the Sieve of the current
// checkpoint (options.resume).
struct CrawlStart {
  std::unique_ptr<CrawlStateDir> state;  // null: checkpoints off
  std::unique_ptr<sieve::Sieve> sieve;
  bool resumed = false;
  // --max-pages across a shared frontier's fleet (FrontierOptions::
  // shared_pages); null for a process's own frontier. Uses `sieve`.
  std::shared_ptr<PageBudget> shared_pages;
  // --per-ip and --ip-delay across a shared frontier's fleet
  // (FrontierOptions::server_leases); null for a process's own. Uses `sieve`.
  std::shared_ptr<ServerLeases> server_leases;
};
absl::StatusOr<CrawlStart> OpenCrawlStart(const CrawlOptions& options);

class Checkpointer {
 public:
  struct Parts {
    sieve::Sieve* sieve;
    Frontier* frontier;
    CrawlStats* stats;
    // Makes the archive (--warc) durable up to now; may be empty. Called
    // after pages.jsonl's length is taken, so every page below it has its
    // WARC records on disk before the checkpoint names that length.
    std::function<absl::Status()> sync_archive;
    // The per-host politeness whose drop decisions checkpoints keep; may be null.
    PolitePolicy* policy = nullptr;
    // The cookie jar's text (Fetcher::CookieJar); may be empty (no jar kept).
    std::function<std::string()> cookies;
    // The crawler-trap counts: saved with each checkpoint, put back by
    // Restore; may be null (no counts kept).
    TrapGuard* traps = nullptr;
  };
  Checkpointer(const CrawlOptions& options, std::vector<std::string> seeds,
               std::unique_ptr<CrawlStateDir> state, Parts parts);

  bool enabled() const { return state_ != nullptr; }
  // The crawl's seeds, normalized (the checkpoint's on --resume): the one
  // copy the crawl keeps.
  const std::vector<std::string>& seeds() const { return *seeds_; }
  // The seeds to normalize: the stored ones when resuming.
  static const std::vector<std::string>& SeedsOf(const CrawlStart& start,
                                                 const std::vector<std::string>& given);

  // On resume, before the log is opened and anything offered: restores the
  // trap counts, the Frontier's counts and the crawl's counters, and cuts a
  // torn last line off `log_path`. Damaged trap counts are DataLoss naming
  // their file, before anything else is touched.
  absl::Status Restore(const std::string& log_path);

  // On resume: the jar the checkpoint kept (for FetchOptions::restored_cookies);
  // "" otherwise.
  std::string RestoredCookies() const { return enabled() ? state_->loaded().cookies : ""; }

  // Crawl time of the runs before this one (0 for a new crawl).
  double prior_seconds() const { return prior_seconds_; }

  std::shared_lock<std::shared_mutex> CommitScope() {
    return std::shared_lock<std::shared_mutex>(commit_mu_);
  }

  // With checkpoints on, a fetch abandoned by a stop is not recorded: its URL
  // stays unfinished, so the final checkpoint queues it again.
  bool KeepForResume(bool stopping, const FetchResult& result) const;

  // A checkpoint now (no-op when off). `log` must be open; `crawl_seconds`
  // is the crawl time so far, all runs.
  absl::Status Take(PageLog* log, double crawl_seconds);
  // Take, when checkpoint_every_s passed since the last one.
  absl::Status TakeIfDue(PageLog* log, double crawl_seconds);

  // The last checkpoint's duration and bytes written (CrawlStateDir's
  // last_write_*); 0 when none was taken in this run or checkpoints are off.
  int64_t last_ms() const { return enabled() ? state_->last_write_ms() : 0; }
  int64_t last_bytes() const { return enabled() ? state_->last_write_bytes() : 0; }

 private:
  absl::StatusOr<CrawlCheckpoint> Capture(const std::filesystem::path& dir, PageLog* log,
                                          double crawl_seconds);

  const CrawlOptions options_;
  const SeedList seeds_;  // never null
  const std::unique_ptr<CrawlStateDir> state_;
  const Parts parts_;
  double prior_seconds_ = 0;
  absl::Time last_ = absl::Now();
  std::shared_mutex commit_mu_;
};

}  // namespace crawler

#endif  // CRAWLER_APP_CHECKPOINTER_H_
