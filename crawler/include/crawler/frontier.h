// Frontier: the host-aware stage between the Sieve and the fetchers.
//
//   discovered URL --Offer--> Sieve (seen-check + FIFO, may spill to disk)
//                                |  pulled only up to `max_buffered` URLs
//                                v
//                  HostQueues (one FIFO per authority, ready-time heap)
//                                |  --Next--> fetcher --Release--> (slot back)
//                                v
//                              Done (page parsed and its links offered)
//
// The Sieve owns de-duplication and breadth-first order; the Frontier owns
// "which host may be fetched now" (per-host connections and delay, through a
// HostPolicy that politeness, #5, replaces) and the page limit.
//
// Depth, parent and redirect hops: the Sieve stores bare URL strings (its key
// must be the normalized URL alone), so the Frontier keeps them in a side
// table keyed by URL for the URLs the Sieve holds (queued, or handed out and
// not yet Done, so a checkpoint can save them), with parent URLs
// shared (a page's 50 children hold one copy). Cost: ~40 bytes plus the
// URL per queued URL, in memory, even when the Sieve spills its queue to disk;
// `Stats().pending_meta` shows it. A URL without an entry (it cannot happen
// unless the Sieve is shared) is crawled at depth 0 with no parent.
//
//   auto frontier = crawler::Frontier::Create(sieve.get(), options);
//   (*frontier)->Offer(seed);                              // parser threads too
//   while (auto url = (*frontier)->Next(absl::Now())) Fetch(*url);   // scheduler
//   // on fetch end:  (*frontier)->Release(*url, outcome, absl::Now());
//   // after parsing: (*frontier)->Done(*url);
//   if ((*frontier)->Exhausted()) ...                      // crawl complete
//
// Threading: every method is safe to call concurrently.
#ifndef CRAWLER_FRONTIER_H_
#define CRAWLER_FRONTIER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crawler/host_queues.h"

namespace sieve {
class Sieve;
}

namespace crawler {

class HostCountSketch;

struct FrontierOptions {
  // URLs pulled from the Sieve into the per-host queues ahead of fetching.
  // Larger lets more hosts be ready at once (a queue dominated by one slow
  // host needs many URLs buffered to find others); smaller keeps RAM low and
  // order closer to the Sieve's FIFO. 4096 URLs is ~0.5 MB.
  size_t max_buffered = 4096;
  // Of those, at most this many per authority count against max_buffered; a
  // host's URLs beyond it go to an overflow of up to 4 x max_buffered URLs.
  // Without it a backlog of one slow host fills the whole budget and the URLs
  // of other hosts behind it in the Sieve never get in (the crawl then runs at
  // one host's --delay). When the overflow is full too, the Frontier passes
  // over the backlog: URLs of hosts at their cap are given back to the
  // Sieve's tail (Sieve::Defer) until a URL of another host comes up, but
  // only while URLs of other hosts are known to be queued (a 32 KiB count of
  // queued URLs per authority hash; a single-host crawl never passes over)
  // and at most pass_over_per_second of them, so a backlog of any length is
  // crossed at a bounded cost. 64 is a minute of work for a host at the
  // default 1 s delay. 0 = no per-host cap (and no passing over).
  size_t max_buffered_per_host = 64;
  // URLs given back to the Sieve per second at most while passing over a
  // backlog; a burst of up to max_buffered is allowed. Each costs a pop and a
  // push of the Sieve (~1 us), so 100,000 is at most ~10% of a core while a
  // backlog is being crossed: a backlog of 1e6 URLs takes ~10 s.
  double pass_over_per_second = 100000;
  // Fetches handed out in total; 0 = unlimited (--max-pages).
  uint64_t max_pages = 0;
  // URLs accepted per authority; 0 = unlimited (--max-pages-per-host). Checked
  // before the Sieve, so a refused URL costs no filter bits and is counted in
  // Stats().over_host_limit. One counter per authority is kept in memory.
  uint64_t max_pages_per_host = 0;
  // The default politeness, used when Create gets no HostPolicy: concurrent
  // fetches per authority (--per-host) and time between starts (--delay).
  int per_host = 2;
  absl::Duration delay = absl::Seconds(1);
};

struct FrontierStats {
  uint64_t offered = 0;          // Offer calls
  uint64_t accepted = 0;         // Offer calls the Sieve took as new
  uint64_t handed_out = 0;       // URLs returned by Next
  uint64_t done = 0;             // Done calls
  size_t buffered = 0;           // URLs in the per-host queues
  size_t fetching = 0;           // handed out, slot not yet released
  size_t unfinished = 0;         // handed out, not yet Done
  size_t authorities = 0;        // authorities known to the host queues
  size_t pending_meta = 0;       // side-table entries (URLs queued in the Sieve)
  uint64_t over_host_limit = 0;  // offers refused by max_pages_per_host
  uint64_t passed_over = 0;      // URLs given back to the Sieve's tail (see max_buffered_per_host)
};

// What a checkpoint keeps of the Frontier (see Frontier::Checkpoint): the
// side-table entries of every URL the Sieve holds, queued or handed out and
// not yet Done, and the counters a resumed crawl continues from.
struct FrontierSnapshot {
  std::vector<CrawlUrl> pending;                           // url, depth, parent, redirect_hops
  std::vector<std::pair<std::string, uint64_t>> per_host;  // accepted per authority
  FrontierStats stats;  // offered, accepted, done, over_host_limit are restored
};

class Frontier {
 public:
  // `sieve` must outlive the Frontier. `policy` may be null: a
  // FixedDelayPolicy from options.per_host / options.delay is used.
  static absl::StatusOr<std::unique_ptr<Frontier>> Create(sieve::Sieve* sieve,
                                                          const FrontierOptions& options,
                                                          std::unique_ptr<HostPolicy> policy = {});
  ~Frontier();

  // Pushes url.url (normalized, already filtered) into the Sieve. True when the
  // Sieve took it as new (false: probably seen before). url.authority may be
  // empty (computed here).
  bool Offer(const CrawlUrl& url);

  // The links of one page, all at `depth` with `parent`, in one lock hold and
  // sharing one copy of `parent`. Returns how many were new.
  size_t OfferLinks(const std::vector<std::string>& urls, int depth, const std::string& parent);

  // The next URL that may be fetched at `now`, or nullopt (nothing ready yet,
  // everything fetched, or the page limit reached). Refills the host queues
  // from the Sieve first.
  std::optional<CrawlUrl> Next(absl::Time now);

  // When Next may next return something: the earliest ready time of a queued
  // authority; InfiniteFuture when that depends on a Release or an Offer.
  absl::Time NextReadyTime();

  // The fetch of `url` ended (frees its authority's connection slot). Not for
  // a URL handed out with drop_reason set: it holds no slot.
  void Release(const CrawlUrl& url, const FetchOutcome& outcome, absl::Time now);

  // `url` is finished: fetched, parsed and its links offered. Call once per
  // URL from Next, after Release.
  void Done(const CrawlUrl& url);

  // Gives `url`, handed out by Next and not fetched, back to its host queue:
  // it is no longer counted as handed out and comes out of Next again when
  // its host is ready. Its slot must have been released first (the robots
  // gate fetched robots.txt in that slot instead of the page).
  void Requeue(const CrawlUrl& url, absl::Time now);

  // Queues a sitemap fetch (url.url, url.depth = its index level) behind its
  // host's URLs, so it waits for the host's connection slot and --delay like
  // a page. Next hands it out with `sitemap` set, without counting it as a
  // page; the caller fetches it and Releases it (a dropped one: neither).
  void QueueSitemap(CrawlUrl url, absl::Time now);

  // True when no more URLs will come: the page limit is reached, or the Sieve
  // and the host queues are empty; in both cases with nothing unfinished.
  bool Exhausted();
  bool PageLimitReached();

  FrontierStats Stats();

  // For a checkpoint: runs `save_sieve` (which saves the Sieve) under the
  // Frontier's lock and returns the snapshot of that same moment, so the
  // Sieve's queue and in-flight set and the side table agree. Offers, Next,
  // Release and Done wait meanwhile. Implemented in frontier_checkpoint.cc.
  absl::StatusOr<FrontierSnapshot> Checkpoint(const std::function<absl::Status()>& save_sieve);
  // On resume, before any Offer or Next, with the Sieve opened from the same
  // checkpoint (its in-flight URLs queued again): restores the side table,
  // the per-host counts and the counters (handed_out = done, so --max-pages
  // counts the pages of the whole crawl).
  void Restore(const FrontierSnapshot& snapshot);

 private:
  struct Meta {
    int depth = 0;
    int redirect_hops = 0;
    std::shared_ptr<const std::string> parent;
  };

  Frontier(sieve::Sieve* sieve, const FrontierOptions& options, std::unique_ptr<HostPolicy> policy);
  void RefillLocked(absl::Time now);  // requires mu_
  // Whether Refill may give URLs of backlogged hosts back to the Sieve now:
  // URLs of other hosts are queued there and the rate allows it.
  bool MayPassOverLocked(absl::Time now);                                     // requires mu_
  bool OtherHostsQueuedLocked() const;                                        // requires mu_
  bool OfferLocked(const std::string& url, Meta meta);                        // requires mu_
  bool UnderHostLimitLocked(const std::string& url, std::string* authority);  // requires mu_
  std::shared_ptr<const std::string> InternParentLocked(const std::string& parent);

  sieve::Sieve* const sieve_;
  const FrontierOptions options_;
  const std::unique_ptr<HostPolicy> policy_;

  std::mutex mu_;
  HostQueues queues_;                            // guarded by mu_
  absl::flat_hash_map<std::string, Meta> meta_;  // guarded by mu_
  // Accepted URLs per authority (only with max_pages_per_host); guarded by mu_.
  absl::flat_hash_map<std::string, uint64_t> per_host_;
  uint64_t sitemaps_queued_ = 0;                    // guarded by mu_; QueueSitemap not handed out
  std::shared_ptr<const std::string> last_parent_;  // guarded by mu_; interning cache
  FrontierStats stats_;                             // guarded by mu_
  // Queued URLs per authority hash (see max_buffered_per_host); guarded by mu_.
  std::unique_ptr<HostCountSketch> sieve_hosts_;
  double pass_over_tokens_ = 0;                           // guarded by mu_; token bucket
  absl::Time pass_over_refilled_ = absl::InfinitePast();  // guarded by mu_
  bool pass_over_waiting_ = false;  // guarded by mu_; out of tokens, more to do
};

}  // namespace crawler

#endif  // CRAWLER_FRONTIER_H_
