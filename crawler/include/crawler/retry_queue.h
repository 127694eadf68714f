// RetryQueue: transient fetch failures (429, 500, 502, 503, 504, and the
// transport errors timeout, connect and reset) get up to `max_retries` more
// attempts, each after an exponential back-off: first_backoff, 2x, 4x, ...
// A Retry-After on a 429 or 503 is honoured by the host's politeness (the
// retried URL goes back to its host queue, which the server's pause, capped
// at 1 h, holds closed; PolitePolicy), so the retry waits for the longer of
// the two (so a page answering 429 once is not lost). A retried
// URL does not go through the Sieve again (it is the same URL, already seen);
// it waits here until its time, then goes straight back to a fetcher.
//
// One record per URL: the crawler writes the outcome of the LAST attempt, with
// "attempts": n (1 when the first attempt was final). Earlier attempts leave
// no record. URLs still waiting when the crawl stops are dropped unrecorded,
// like any URL still queued.
//
//   crawler::RetryQueue retries({.max_retries = 2, .first_backoff = absl::Seconds(1)});
//   // when a fetch ends:
//   int attempts = 0;
//   if (retries.ScheduleIfRetryable(url, result.status, result.error, absl::Now(), &attempts))
//     return;                                            // it will come back
//   Record(result, attempts);
//   // in the scheduler, before asking the frontier:
//   if (auto again = retries.TakeDue(absl::Now())) Fetch(*again);
//
// Politeness: a retry is handed to the fetcher when its back-off ends, without
// waiting for a per-host slot; the back-off (>= first_backoff) is its spacing.
// Cost: a heap entry (a CrawlUrl: URL, authority, parent; ~250 bytes) and a
// map entry (URL + attempt count, ~100 bytes) per URL waiting, for at most
// RetryOptions::max_waiting URLs (100,000: ~35 MB). When it is full, a
// retryable failure is final at once (recorded with its attempts so far) and
// counted in full_refusals(): a crawl where that many URLs fail at once has
// bigger problems than a lost retry, and memory must not follow them.
//
// Threading: all methods are safe to call concurrently.
#ifndef CRAWLER_RETRY_QUEUE_H_
#define CRAWLER_RETRY_QUEUE_H_

#include <cstdint>
#include <mutex>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "crawler/host_queues.h"

namespace crawler {

struct RetryOptions {
  // Extra attempts after the first (--retries); 0 disables retrying.
  int max_retries = 2;
  // Wait before the first retry (--retry-backoff); retry k waits
  // first_backoff * 2^(k-1). 1 s, 2 s is polite to a server that is briefly
  // overloaded; tests shrink it to milliseconds.
  absl::Duration first_backoff = absl::Seconds(1);
  // URLs waiting for their back-off at most; see the Cost note above.
  size_t max_waiting = 100'000;
};

// True for what may succeed if tried again: HTTP 429, 500, 502, 503, 504 without a
// transport error, or the transport errors "timeout", "connect" and "reset".
bool IsRetryable(long status, std::string_view error);

class RetryQueue {
 public:
  explicit RetryQueue(const RetryOptions& options) : options_(options) {}

  // Called once per finished fetch of `url`. When the failure is retryable and
  // attempts remain, queues the URL for now + back-off and returns true (the
  // caller records nothing). Otherwise returns false and sets `*attempts` to
  // the number of attempts made, this one included.
  bool ScheduleIfRetryable(const CrawlUrl& url, long status, std::string_view error, absl::Time now,
                           int* attempts);

  // A URL whose back-off has ended, earliest first.
  std::optional<CrawlUrl> TakeDue(absl::Time now);
  // When TakeDue will next return one; InfiniteFuture when nothing waits.
  absl::Time NextDueTime() const;
  // The URL NextDueTime is for ("" when nothing waits), to name the wait.
  std::string NextDueUrl() const;
  // URLs waiting for their back-off.
  size_t waiting() const;
  // Retries scheduled since creation.
  uint64_t scheduled() const;
  // Retryable failures made final because max_waiting URLs were waiting.
  uint64_t full_refusals() const;

 private:
  struct Entry {
    absl::Time due;
    uint64_t order;  // FIFO among equal times
    CrawlUrl url;
    bool operator>(const Entry& o) const { return due != o.due ? due > o.due : order > o.order; }
  };

  const RetryOptions options_;
  mutable std::mutex mu_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap_ ABSL_GUARDED_BY(mu_);
  // Attempts made so far, for URLs that failed transiently and are not final.
  absl::flat_hash_map<std::string, int> attempts_ ABSL_GUARDED_BY(mu_);
  uint64_t next_order_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t scheduled_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t full_refusals_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace crawler

#endif  // CRAWLER_RETRY_QUEUE_H_
