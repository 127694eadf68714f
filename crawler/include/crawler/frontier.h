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
// HostPolicy: PolitePolicy in the crawler, polite_policy.h) and the page
// limit.
//
// Depth, parent and redirect hops travel with the URL as its Sieve payload
// (a version byte, varints and the parent URL: src/frontier/url_payload.h),
// in the Sieve's memory, spilled segments and checkpoints, so they cost no
// RAM outside --queue-memory. A URL popped with an empty payload (pushed by
// someone else, or through a Sieve that keeps no payloads) is crawled at
// depth 0 with no parent; a malformed one too, counted in
// Stats().bad_payloads and logged.
//
// Memory that grows with the crawl, outside the Sieve (bounds at the
// declarations below): the host queues (at most 5 x max_buffered URLs plus
// one record per authority with URLs buffered or in flight), two fixed 32 KiB
// sketches, and with max_pages_per_host a per-authority count of at most
// ~36 MB (HostLimitCounts).
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
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crawler/host_queues.h"
#include "crawler/link_priority.h"

namespace sieve {
class Sieve;
}

namespace crawler {

class HostCountSketch;
class HostLimitCounts;

// A page budget shared by the processes of a fleet (--max-pages with a shared
// --frontier; app/redis_frontier.h keeps it in Redis): the Frontier takes a
// page from it before it hands one out, so the fleet's total never exceeds
// the limit. Threading: the Frontier calls it under its lock.
class PageBudget {
 public:
  virtual ~PageBudget() = default;
  // One page, if fewer than `limit` were taken fleet-wide; false if spent.
  virtual bool Take(uint64_t limit) = 0;
  // Gives back `count` pages taken and not handed out.
  virtual void Return(uint64_t count) = 0;
};

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
  // With max_pages: the fleet's budget, when several processes share the
  // Sieve; null = max_pages is this Frontier's own. Counted as a process
  // counts: a page handed out by Next takes one (error or not; a redirect's
  // target is a page of its own), a Requeue'd one is kept for the next Next
  // (held locally, at most a few), and those held at destruction are
  // returned. Once Take is refused the Frontier hands out no page it holds
  // no taken page for.
  std::shared_ptr<PageBudget> shared_pages;
  // URLs accepted per authority; 0 = unlimited (--max-pages-per-host). Checked
  // before the Sieve, so a refused URL costs no filter bits and is counted in
  // Stats().over_host_limit. Counted per authority hash in 20-35 bytes, for
  // at most ~1.8e6 authorities (~36 MB); later ones share 65,536 counters and
  // may be refused before their limit (src/frontier/host_limit_counts.h).
  uint64_t max_pages_per_host = 0;
  // The default politeness, used when Create gets no HostPolicy: concurrent
  // fetches per authority (--per-host) and time between starts (--delay).
  int per_host = 2;
  absl::Duration delay = absl::Seconds(1);
  // Groups authorities by the server they resolve to, so the policy's
  // per-server limits hold (HostPolicy::AddressConnections, --per-ip); null
  // = per-authority limits only. Asked under the Frontier's lock: must not
  // block (fetch's AddressBook resolves on threads of its own).
  std::shared_ptr<HostAddresses> addresses;
  // With addresses: the server slots a fleet shares (--per-ip and --ip-delay
  // across the processes of a shared frontier); null = per process.
  std::shared_ptr<ServerLeases> server_leases;
  // The priority of each URL offered (--prefer, --defer, --depth-priority,
  // [[priority]]); null or without rules: every URL at 0, FIFO.
  std::shared_ptr<const LinkPriority> priority;
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
  uint64_t over_host_limit = 0;  // offers refused by max_pages_per_host
  uint64_t passed_over = 0;      // URLs given back to the Sieve's tail (see max_buffered_per_host)
  uint64_t bad_payloads = 0;     // popped URLs whose payload did not decode (crawled at depth 0)
  size_t servers = 0;            // servers (resolved addresses) with a record in the host queues
  uint64_t server_waits = 0;     // an authority ready on its own held by its server's limits:
  uint64_t server_slot_waits = 0;   //   for a free connection to it (or the fleet's lease)
  uint64_t server_delay_waits = 0;  //   for its start interval (--ip-delay)
  size_t servers_counted = 0;       // servers with counts (HostQueues::kMaxServersCounted at most)
  size_t host_limit_bytes = 0;      // memory of the max_pages_per_host counts
};

// What a checkpoint keeps of the Frontier (see Frontier::Checkpoint): the
// counters a resumed crawl continues from and per-host counts, nothing per
// URL (the URLs' depth and parent are in the Sieve's checkpoint). Its size
// is bounded by the number of authorities (max_pages_per_host) and 4096.
struct FrontierSnapshot {
  // max_pages_per_host: accepted URLs per StableAuthorityHash of the
  // authority, and per shared bucket (see FrontierOptions::max_pages_per_host).
  std::vector<std::pair<uint64_t, uint64_t>> per_host;
  std::vector<std::pair<uint64_t, uint64_t>> per_host_shared;
  // URLs the reopened Sieve holds, per bucket of authority hash (the
  // pass-over sketch, see max_buffered_per_host); non-zero buckets only.
  std::vector<std::pair<uint64_t, uint64_t>> queued_hosts;
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
  // one Sieve::PushBatch (every link's payload is the same bytes, encoded
  // once). Returns how many were new. `sitemap_priorities`, when given, holds
  // one <priority> per URL (a sitemap's links), weighed by
  // --sitemap-priority (LinkPriority::OfSitemapUrl).
  size_t OfferLinks(const std::vector<std::string>& urls, int depth, const std::string& parent,
                    const std::vector<double>& sitemap_priorities = {});

  // The next URL that may be fetched at `now`, or nullopt (nothing ready yet,
  // everything fetched, or the page limit reached). Refills the host queues
  // from the Sieve first.
  std::optional<CrawlUrl> Next(absl::Time now);

  // When Next may next return something: the earliest ready time of a queued
  // authority; InfiniteFuture when that depends on a Release or an Offer.
  absl::Time NextReadyTime();

  // What NextReadyTime waits for, in words: "the Retry-After of a 503 (2s)
  // of http://h:8080", "the delay between requests to http://h:8080 (1s)";
  // "" when nothing is scheduled. An idle crawl names its timer with this.
  std::string NextReadyReason(absl::Time now);

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
  void Requeue(const CrawlUrl& url);

  // Queues a sitemap fetch (url.url, url.depth = its index level) behind its
  // host's URLs, so it waits for the host's connection slot and --delay like
  // a page. Next hands it out with `sitemap` set, without counting it as a
  // page; the caller fetches it and Releases it (a dropped one: neither).
  void QueueSitemap(CrawlUrl url);

  // True when no more URLs will come: the page limit is reached, or the Sieve
  // and the host queues are empty; in both cases with nothing unfinished.
  bool Exhausted();
  bool PageLimitReached();

  FrontierStats Stats();
  // The `limit` servers with the most starts this run, most first, with
  // their waits (HostQueues::BusiestServers).
  std::vector<std::pair<std::string, ServerCount>> BusiestServers(size_t limit);

  // For a checkpoint: runs `save_sieve` (which saves the Sieve) under the
  // Frontier's lock and returns the snapshot of that same moment, so the
  // Sieve's queue and in-flight set and the counts agree. Offers, Next,
  // Release and Done wait meanwhile. Implemented in frontier_checkpoint.cc.
  absl::StatusOr<FrontierSnapshot> Checkpoint(const std::function<absl::Status()>& save_sieve);
  // On resume, before any Offer or Next, with the Sieve opened from the same
  // checkpoint (its in-flight URLs queued again): restores the per-host
  // counts and the counters (handed_out = done, so --max-pages
  // counts the pages of the whole crawl).
  void Restore(const FrontierSnapshot& snapshot);

 private:
  Frontier(sieve::Sieve* sieve, const FrontierOptions& options, std::unique_ptr<HostPolicy> policy);
  void RefillLocked(absl::Time now);  // requires mu_
  // Depth, parent and hops of a popped URL from its payload; requires mu_.
  void DecodePayloadLocked(const std::string& payload, CrawlUrl* url);
  // Whether Refill may give URLs of backlogged hosts back to the Sieve now:
  // URLs of other hosts are queued there and the rate allows it.
  bool MayPassOverLocked(absl::Time now);  // requires mu_
  bool OtherHostsQueuedLocked() const;     // requires mu_
  bool OfferLocked(const std::string& url, std::string_view payload,
                   int32_t priority);  // requires mu_
  // options_.priority's value for `url`, 0 without rules.
  int32_t PriorityOf(const std::string& url, int depth) const;
  bool UnderHostLimitLocked(const std::string& url, std::string* authority);  // requires mu_
  bool PageLimitReachedLocked() const;                                        // requires mu_
  // With shared_pages: makes sure a page is held before a page may be handed
  // out at `now`; false when none is ready or the budget is spent.
  bool HoldSharedPageLocked(absl::Time now);  // requires mu_

  sieve::Sieve* const sieve_;
  const FrontierOptions options_;
  const std::unique_ptr<HostPolicy> policy_;

  std::mutex mu_;
  HostQueues queues_;  // guarded by mu_
  // URLs of the previous crawl (--recrawl) not due yet: Next hands them out
  // first, with `carried` set, outside the host queues (no request, so no
  // slot and no delay). At most max_buffered: Refill stops there.
  std::deque<CrawlUrl> carried_;  // guarded by mu_
  // Accepted URLs per authority (only with max_pages_per_host; bounded, see
  // there); guarded by mu_.
  std::unique_ptr<HostLimitCounts> per_host_;
  uint64_t sitemaps_queued_ = 0;  // guarded by mu_; QueueSitemap not handed out
  FrontierStats stats_;           // guarded by mu_
  // Queued URLs per authority hash (see max_buffered_per_host), 32 KiB;
  // guarded by mu_.
  std::unique_ptr<HostCountSketch> sieve_hosts_;
  // Handed out and not Done, per authority hash (32 KiB): the Sieve queues
  // them again on resume, so a checkpoint adds them to sieve_hosts_'s counts.
  std::unique_ptr<HostCountSketch> unfinished_hosts_;
  double pass_over_tokens_ = 0;                           // guarded by mu_; token bucket
  absl::Time pass_over_refilled_ = absl::InfinitePast();  // guarded by mu_
  bool pass_over_waiting_ = false;  // guarded by mu_; out of tokens, more to do
  // With shared_pages: pages taken from the budget and not yet handed out
  // (at most 1 + the Requeue'd ones), and whether a Take was refused.
  uint64_t shared_pages_held_ = 0;   // guarded by mu_
  bool shared_pages_spent_ = false;  // guarded by mu_
};

}  // namespace crawler

#endif  // CRAWLER_FRONTIER_H_
