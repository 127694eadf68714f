// Politeness in the crawl loop, from the crawler's side: the PolitePolicy
// built from CrawlOptions (its [[hosts]] rules and robots.txt Crawl-delay),
// the FetchOutcome the policy sees of a FetchResult (Retry-After included),
// and the pages.jsonl record of a URL not fetched because its host was
// dropped.
//
//   auto policy = MakePolitePolicy(options, [&](const std::string& a) {...});
//   frontier->Release(url, FetchOutcomeOf(result, absl::Now()), absl::Now());
//   if (!url.drop_reason.empty()) log->Append(HostDroppedRecord(url, now));
//
// Threading: pure functions.
#ifndef CRAWLER_APP_POLITENESS_H_
#define CRAWLER_APP_POLITENESS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crawler/fetch.h"
#include "crawler/frontier.h"
#include "crawler/metrics.h"
#include "crawler/options.h"
#include "crawler/output.h"
#include "crawler/polite_policy.h"

namespace crawler {

// --per-host, --delay and [[hosts]] of `options`; `crawl_delay` (may be
// empty) answers RobotsCache::CrawlDelay for a frontier authority.
absl::StatusOr<std::unique_ptr<PolitePolicy>> MakePolitePolicy(
    const CrawlOptions& options,
    std::function<std::optional<double>(const std::string& authority)> crawl_delay);

// The crawl's HostAddresses (fetch's AddressBook with --resolve), which
// groups hosts by server for --per-ip and --ip-delay; null when a proxy is
// in use (a proxy, --proxy or from the environment, connects for us: there
// is no server address of ours to group by). Fails on a bad --resolve entry.
absl::StatusOr<std::shared_ptr<HostAddresses>> MakeAddressBook(const CrawlOptions& options);

// The robots cache keys authorities as Url::Authority() ("http://h:80", port
// always explicit); the frontier as AuthorityOf ("http://h"). This maps the
// latter to the former ("" when it does not parse).
std::string RobotsAuthorityOf(const std::string& frontier_authority);

// Status, error kind, transfer time, and Retry-After for 429 and 503.
FetchOutcome FetchOutcomeOf(const FetchResult& result, absl::Time now);

// The policy's back-off and slow-down counts and its slowest adaptive
// hosts, for --metrics.
HostBackoffCounts HostCountsOf(const PolitePolicy& policy);

// The grouping by server's counts (servers_counted, the waits, the busiest
// servers) from the frontier into `summary`.
void FillServerFields(Frontier& frontier, CrawlSummary* summary);

// error "host_dropped: <reason>", fetched_at `now`, nothing fetched.
PageRecord HostDroppedRecord(const CrawlUrl& url, absl::Time now);

}  // namespace crawler

#endif  // CRAWLER_APP_POLITENESS_H_
