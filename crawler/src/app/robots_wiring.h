// RobotsParts: robots.txt in the crawl loop, from the crawler's side. Builds
// the RobotsCache and the RobotsGate from CrawlOptions and connects the
// gate's hooks to the crawl: a blocked URL becomes a pages.jsonl record, a
// sitemap's URLs go through the PageProcessor's filter into the Frontier at
// depth 1; --sitemap URLs are queued at the start on the same path. With
// --robots off there is no gate (and a warning at start): every method then
// passes URLs through; with --robots off and --sitemap, a gate that obeys no
// robots.txt (RobotsGateOptions::obey_robots) fetches the sitemaps.
//
//   absl::StatusOr<RobotsParts> robots = MakeRobots(options, wiring);
//   url = robots->TakeReady(now) or frontier->Next(now);
//   url = robots->Admit(std::move(*url), now);   // nullopt: taken by the gate
//   on fetch: if (robots->Owns(result.tag)) robots->gate->OnFetched(...)
//
// Threading: as RobotsGate (every method safe to call concurrently).
#ifndef CRAWLER_APP_ROBOTS_WIRING_H_
#define CRAWLER_APP_ROBOTS_WIRING_H_

#include <functional>
#include <memory>
#include <optional>
#include <shared_mutex>

#include "absl/status/statusor.h"
#include "app/crawl_stats.h"
#include "app/page_processor.h"
#include "crawler/options.h"
#include "crawler/output.h"
#include "crawler/robots_gate.h"

namespace crawler {

// What the gate's hooks reach in the crawl. Pointers must outlive the parts.
struct RobotsWiring {
  Frontier* frontier = nullptr;
  const PageProcessor* processor = nullptr;
  PageLog* log = nullptr;
  CrawlStats* stats = nullptr;
  std::function<bool(FetchRequest)> submit;  // Fetcher::Submit
  std::function<void()> wake;                // wake the scheduler
  // Optional: robots.txt and sitemap responses (e.g. for the WARC file);
  // `for_url` is the URL that triggered the fetch (the sitemap itself for a
  // sitemap). Runs on fetcher threads.
  std::function<void(const FetchResult& result, const CrawlUrl& for_url)> on_robots_fetched;
  // Optional: RobotsGateHooks::commit_scope (Checkpointer::CommitScope).
  std::function<std::shared_lock<std::shared_mutex>()> commit_scope;
};

struct RobotsParts {
  std::unique_ptr<RobotsCache> cache;  // null with --robots off
  std::unique_ptr<RobotsGate> gate;    // null with --robots off

  bool Owns(uint64_t tag) const { return gate != nullptr && RobotsGate::OwnsTag(tag); }
  std::optional<CrawlUrl> TakeReady(absl::Time now) {
    return gate == nullptr ? std::nullopt : gate->TakeReady(now);
  }
  std::optional<CrawlUrl> Admit(CrawlUrl url, absl::Time now) {
    return gate == nullptr ? std::optional<CrawlUrl>(std::move(url))
                           : gate->Admit(std::move(url), now);
  }
  // Only the gate queues sitemaps, so without a gate none is handed out.
  void FetchSitemap(CrawlUrl url) {
    if (gate != nullptr) gate->FetchSitemap(std::move(url));
  }
  absl::Time NextWakeTime() {
    return gate == nullptr ? absl::InfiniteFuture() : gate->NextWakeTime();
  }
  std::string NextWakeReason() { return gate == nullptr ? "" : gate->NextWakeReason(); }
  bool Fetching() { return gate != nullptr && gate->Fetching(); }
  bool Idle() { return gate == nullptr || gate->Idle(); }
  // robots_fetches, robots_blocked, sitemap_fetches, sitemap_urls.
  void AddStats(CrawlSummary* summary) const;
};

absl::StatusOr<RobotsParts> MakeRobots(const CrawlOptions& options, RobotsWiring wiring);

// The pages.jsonl record of a URL the gate did not fetch.
PageRecord RobotsBlockedRecord(const CrawlUrl& url, const std::string& error);

}  // namespace crawler

#endif  // CRAWLER_APP_ROBOTS_WIRING_H_
