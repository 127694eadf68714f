// RobotsGate: robots.txt between the Frontier and the Fetcher. Every URL the
// Frontier hands out passes Admit before it is fetched; the gate fetches each
// authority's /robots.txt itself (through the crawl's Fetcher, with its own
// tags), follows its redirects (up to 5 hops, RFC 9309 2.3.1.2), records the
// outcome in the RobotsCache, and keeps the URLs that must wait.
//
//   scheduler:  url = gate.TakeReady(now) or frontier.Next(now)
//               if (auto go = gate.Admit(url, now)) fetcher.Submit(*go)
//   fetchers:   if (gate.OwnsTag(result.tag)) gate.OnFetched(result)
//   loop ends:  only when gate.Idle() too
//
// What happens to an admitted URL, by the cache's verdict:
//   kAllowed      returned: fetch it (it keeps its Frontier slot).
//   kDisallowed   not fetched: slot released, hooks.on_blocked (error
//                 "robots"), Frontier::Done.
//   kFetchRobots  /robots.txt is fetched IN THIS URL'S SLOT (it is a request to
//                 that host, so it counts against --per-host and --delay).
//                 When the outcome is recorded, the slot is released with the
//                 robots.txt response's outcome and the URL is put back into
//                 its host queue (Frontier::Requeue): its page is fetched when
//                 the host's politeness next allows, like any other URL.
//   kWait         parked until the authority's outcome is recorded, its slot
//                 released (not fetched: the host's politeness is unchanged);
//                 then put back into its host queue (Frontier::Requeue), so
//                 URLs that waited together still leave spaced by --delay.
//   kUnreachable  parked (keeping its slot: the host is closed anyway) until
//                 the cache's retry time, then re-checked; one of them then
//                 refetches robots.txt. After `max_tries` unreachable answers
//                 in a row, the authority is given up for this crawl: its URLs
//                 are recorded with error "robots_unreachable", not fetched.
//                 No server at all (connect refused, dns) gives it up at
//                 the first answer: its pages would fail the same way.
// Nothing busy-loops: parked URLs leave the scheduler until their wake time
// (NextWakeTime) or an outcome (hooks.wake), and other hosts go on.
//
// With `sitemaps`, each parsed robots.txt's Sitemap: lines are fetched once
// per crawl, sitemap indexes followed `max_sitemap_depth` levels, and the
// <loc> URLs handed to hooks.on_sitemap_urls (the crawl filters and offers
// them at depth 1). Sitemap fetches are polite like pages: the gate queues
// them in the Frontier (QueueSitemap), the scheduler passes what Next hands
// out with `sitemap` set to FetchSitemap, and the fetch holds its host's slot
// and counts against its --delay; its outcome reaches the host's politeness.
//
// Threading: all methods are safe to call concurrently; Admit and TakeReady
// are meant for the scheduler thread, OnFetched for fetcher threads. Hooks are
// called without the gate's lock held; submit may run the fetch callback
// before it returns only on another thread (the Fetcher's rule).
#ifndef CRAWLER_ROBOTS_GATE_H_
#define CRAWLER_ROBOTS_GATE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "crawler/fetch.h"
#include "crawler/frontier.h"
#include "crawler/robots_cache.h"
#include "crawler/sitemap.h"

namespace crawler {

// The body cap of a robots.txt fetch, whatever --max-body says: above the
// 500 KiB the parser keeps (RFC 9309 2.5), so a cut file still yields whole
// lines up to that point.
inline constexpr uint64_t kRobotsFetchMaxBytes = 512 * 1024;

struct RobotsGateOptions {
  // Unreachable robots.txt answers (5xx, 429, network errors) in a row after
  // which an authority's URLs are given up. The cache's back-off between
  // tries is RobotsCacheOptions::first_retry, doubling. Must be >= 1.
  int max_tries = 3;
  // Fetch the Sitemap: lines of robots.txt files (--sitemaps).
  bool sitemaps = false;
  // false (--robots off with --sitemap): Admit passes every URL and no
  // robots.txt is fetched; the gate only fetches the sitemaps it is given.
  bool obey_robots = true;
  // Sitemap index levels followed below a robots.txt's Sitemap: line.
  int max_sitemap_depth = 3;
  // Sitemap files fetched per crawl, all hosts together (a bound on a
  // hostile index of indexes).
  int max_sitemap_files = 1000;
  SitemapLimits sitemap_limits;
};

struct RobotsGateHooks {
  // Required: queues a fetch (Fetcher::Submit). False once shut down.
  std::function<bool(FetchRequest)> submit;
  // Required: `url` is not fetched; write its record with `error` ("robots:
  // ..." or "robots_unreachable: ..."). The gate releases its slot before and
  // calls Frontier::Done after.
  std::function<void(const CrawlUrl& url, const std::string& error)> on_blocked;
  // Optional: a lock held across on_blocked and Frontier::Done, so that a
  // checkpoint sees both or neither (Checkpointer::CommitScope). Without it a
  // checkpoint between the two keeps the record and the URL still to do, and
  // a resume records the URL a second time.
  std::function<std::shared_lock<std::shared_mutex>()> commit_scope;
  // Optional: something became ready (wake the scheduler).
  std::function<void()> wake;
  // Optional: every robots.txt response (each redirect hop too), e.g. for the
  // WARC file; `for_url` is the URL whose check triggered the fetch.
  std::function<void(const FetchResult& result, const CrawlUrl& for_url)> on_robots_fetched;
  // Optional: every sitemap response, as above (for_url.url is the sitemap).
  std::function<void(const FetchResult& result, const CrawlUrl& for_url)> on_sitemap_fetched;
  // Optional (needed with sitemaps): page URLs listed by `sitemap_url`, raw
  // as written in the file, and their <priority> values (one per URL;
  // Sitemap::priorities).
  std::function<void(const std::vector<std::string>& urls, const std::vector<double>& priorities,
                     const std::string& sitemap_url)>
      on_sitemap_urls;
};

struct RobotsGateStats {
  uint64_t robots_fetches = 0;   // robots.txt requests (redirect hops included)
  uint64_t blocked = 0;          // URLs not fetched: disallowed
  uint64_t gave_up = 0;          // URLs not fetched: robots.txt unreachable
  uint64_t sitemap_fetches = 0;  // sitemap requests
  uint64_t sitemap_urls = 0;     // page URLs found in sitemaps
  size_t parked = 0;             // URLs waiting now
};

class RobotsGate {
 public:
  // `cache` and `frontier` must outlive the gate.
  RobotsGate(RobotsCache* cache, Frontier* frontier, RobotsGateOptions options,
             RobotsGateHooks hooks);
  RobotsGate(const RobotsGate&) = delete;
  RobotsGate& operator=(const RobotsGate&) = delete;

  // Tags the gate uses for its own fetches have this bit set.
  static constexpr uint64_t kTagBit = uint64_t{1} << 63;
  static bool OwnsTag(uint64_t tag) { return (tag & kTagBit) != 0; }

  // `url` (from Frontier::Next or TakeReady) if it may be fetched now;
  // otherwise the gate takes it (see the table above) and returns nullopt.
  std::optional<CrawlUrl> Admit(CrawlUrl url, absl::Time now);
  // Queues sitemaps robots.txt does not list (--sitemap) on the path
  // robots.txt's go: fetched once per crawl, indexes followed, within
  // max_sitemap_files. Call before the crawl loop's first end check: the
  // Frontier counts them as work from here (Exhausted is false).
  void QueueSitemapUrls(const std::vector<std::string>& urls);
  // Fetches a sitemap the Frontier handed out (url.sitemap), in its slot;
  // one whose host was dropped (drop_reason) is skipped.
  void FetchSitemap(CrawlUrl url);
  // A parked URL whose wait is over, to pass to Admit again; nullopt if none.
  std::optional<CrawlUrl> TakeReady(absl::Time now);
  // The earliest time TakeReady may return something; InfiniteFuture when
  // that depends on a fetch still running.
  absl::Time NextWakeTime();
  // What NextWakeTime waits for, in words; "" when nothing is parked on a time.
  std::string NextWakeReason();
  // A fetch of the gate's (robots.txt, a sitemap) is running or its answer
  // is being handled: something will happen without a timer.
  bool Fetching();
  // A response to one of the gate's fetches (fetcher threads).
  void OnFetched(FetchResult&& result);
  // No parked URL, no fetch of the gate's running and no response being
  // handled: the crawl may end. Work only flows from the gate to the
  // Frontier, so the end check asks Idle BEFORE Frontier::Exhausted: asked
  // after, a sitemap's URLs offered between the two calls would be missed.
  bool Idle();
  RobotsGateStats Stats();

 private:
  // One of the gate's fetches in flight.
  struct Pending {
    enum class Kind { kRobots, kSitemap } kind = Kind::kRobots;
    std::string authority;  // robots: whose rules these are
    CrawlUrl for_url;       // robots: the URL holding the slot; sitemap: url = the sitemap
    int hops = 0;           // robots: redirects followed so far
    int depth = 0;          // sitemap: index levels below robots.txt
  };

  void Block(const CrawlUrl& url, const std::string& error);
  bool Submit(const std::string& url, Pending pending);
  void OnRobotsFetched(FetchResult&& result, Pending pending);
  void RecordRobots(const Pending& pending, int status, const FetchResult& result);
  void QueueSitemaps(const std::string& authority);
  void QueueSitemapList(const std::vector<std::string>& sitemaps);
  void OnSitemapFetched(FetchResult&& result, const Pending& pending);
  void Wake();

  RobotsCache* const cache_;
  Frontier* const frontier_;
  const RobotsGateOptions options_;
  const RobotsGateHooks hooks_;

  std::mutex mu_;
  uint64_t next_tag_ ABSL_GUARDED_BY(mu_) = 1;
  absl::flat_hash_map<uint64_t, Pending> pending_ ABSL_GUARDED_BY(mu_);
  // Responses taken out of pending_ whose work (a sitemap's URLs, a
  // robots.txt's requeued URLs and sitemaps) is not in the Frontier yet. Idle
  // counts them: between the two, the crawl's end check would otherwise see
  // neither the fetch nor its URLs and end the crawl early.
  int handling_ ABSL_GUARDED_BY(mu_) = 0;
  // URLs waiting for their authority's robots.txt outcome (slots released).
  absl::flat_hash_map<std::string, std::vector<CrawlUrl>> waiting_ ABSL_GUARDED_BY(mu_);
  // URLs ready at a time: an unreachable robots.txt's retry time.
  std::multimap<absl::Time, CrawlUrl> ready_ ABSL_GUARDED_BY(mu_);
  // Unreachable answers in a row, only for authorities whose robots.txt is
  // failing now (erased on an answer or when given up): bounded by the hosts
  // with URLs parked.
  absl::flat_hash_map<std::string, int> failures_ ABSL_GUARDED_BY(mu_);
  // The authorities given up, with the reason: ~150 bytes each, at most
  // kMaxGivenUp (~15 MB). Past it, a newly given-up authority is not
  // remembered: its next URL fetches robots.txt again (max_tries more requests
  // to a host that is down), memory does not grow.
  static constexpr size_t kMaxGivenUp = 100'000;
  absl::flat_hash_map<std::string, std::string> given_up_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<std::string> sitemaps_seen_ ABSL_GUARDED_BY(mu_);
  RobotsGateStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace crawler

#endif  // CRAWLER_ROBOTS_GATE_H_
