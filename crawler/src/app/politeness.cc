// CrawlOptions -> PolitePolicyOptions, and the small conversions the crawl
// loop needs around the policy.
#include "app/politeness.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "crawler/counts.h"
#include "crawler/retry_after.h"
#include "crawler/url.h"
#include "fetch/address_book.h"

namespace crawler {

absl::StatusOr<std::unique_ptr<PolitePolicy>> MakePolitePolicy(
    const CrawlOptions& options,
    std::function<std::optional<double>(const std::string& authority)> crawl_delay) {
  PolitePolicyOptions p;
  p.per_host = std::max(1, options.per_host);
  p.delay = absl::Seconds(options.delay_s);
  if (options.per_ip >= 0) p.per_ip = options.per_ip;  // -1: automatic
  if (options.ip_delay != "auto") {
    absl::StatusOr<double> seconds = ParseDuration(options.ip_delay);
    if (!seconds.ok()) return seconds.status();  // ValidateCrawlOptions said why first
    p.ip_delay = absl::Seconds(*seconds);
  }
  for (const HostRule& rule : options.hosts) {
    HostOverride o;
    o.pattern = rule.pattern;
    if (rule.per_host > 0) o.per_host = rule.per_host;
    if (rule.delay_s >= 0) o.delay = absl::Seconds(rule.delay_s);
    if (rule.per_ip >= 0) o.per_ip = rule.per_ip;
    if (rule.ip_delay_s >= 0) o.ip_delay = absl::Seconds(rule.ip_delay_s);
    p.rules.push_back(std::move(o));
  }
  // One knob for "how long after a transient failure": the first host
  // back-off equals the first retry's wait (--retry-backoff, 1 s by default).
  if (options.retry_backoff_s > 0) {
    p.backoff_base = absl::Seconds(options.retry_backoff_s);
    p.backoff_max = std::max(p.backoff_max, p.backoff_base);
    // A host's cool-down before its probe: 60 back-offs (1 min by default;
    // tests with a 10 ms back-off cool down for 0.6 s).
    p.cooldown_base = 60 * p.backoff_base;
  }
  p.adaptive = options.adaptive_delay;
  p.crawl_delay = std::move(crawl_delay);
  return PolitePolicy::Create(std::move(p));
}

absl::StatusOr<std::shared_ptr<HostAddresses>> MakeAddressBook(const CrawlOptions& options) {
  // Through a proxy the crawl never connects to the server itself (and
  // socks5h resolves names at the proxy): nothing to group by.
  if (!options.proxy.empty()) return std::shared_ptr<HostAddresses>();
  if (!options.no_proxy_env) {
    for (const char* name :
         {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"}) {
      if (std::getenv(name) != nullptr) return std::shared_ptr<HostAddresses>();
    }
  }
  AddressBookOptions book;
  book.resolve = options.resolve;
  absl::StatusOr<std::unique_ptr<AddressBook>> made = AddressBook::Create(std::move(book));
  if (!made.ok()) return made.status();
  return std::shared_ptr<HostAddresses>(*std::move(made));
}

std::string RobotsAuthorityOf(const std::string& frontier_authority) {
  absl::StatusOr<Url> url = Url::Parse(frontier_authority + "/");
  return url.ok() ? url->Authority() : std::string();
}

FetchOutcome FetchOutcomeOf(const FetchResult& result, absl::Time now) {
  FetchOutcome outcome;
  outcome.status = static_cast<int>(result.status);
  outcome.failed = !result.error.empty();
  outcome.error_kind = ErrorKind(result.error);
  outcome.elapsed = absl::Milliseconds(result.fetch_ms);
  outcome.sent_after = absl::Milliseconds(result.sent_ms);
  if (outcome.status == 429 || outcome.status == 503) {
    outcome.retry_after = RetryAfterFromHeaders(result.headers, now);
  }
  return outcome;
}

HostBackoffCounts HostCountsOf(const PolitePolicy& policy) {
  const PoliteStats polite = policy.Stats();
  HostBackoffCounts counts;
  counts.failure_backoffs = polite.failure_backoffs;
  counts.cooldowns = polite.cooldowns;
  counts.throttles = polite.throttles;
  counts.dropped_hosts = polite.dropped;
  counts.slowdowns_refused = polite.adaptive.slowdowns_refused;
  counts.slowdowns_failed = polite.adaptive.slowdowns_failed;
  counts.slowdowns_latency = polite.adaptive.slowdowns_latency;
  for (const auto& [authority, delay] :
       policy.SlowestAdaptiveHosts(HostBackoffCounts::kAdaptiveHostsListed)) {
    counts.adaptive_delay_s.emplace_back(authority, absl::ToDoubleSeconds(delay));
  }
  return counts;
}

void FillServerFields(Frontier& frontier, CrawlSummary* summary) {
  const FrontierStats stats = frontier.Stats();
  summary->servers_counted = static_cast<int64_t>(stats.servers_counted);
  summary->server_slot_waits = static_cast<int64_t>(stats.server_slot_waits);
  summary->server_delay_waits = static_cast<int64_t>(stats.server_delay_waits);
  summary->busiest_servers.clear();
  for (const auto& [address, count] : frontier.BusiestServers(CrawlSummary::kServersListed)) {
    summary->busiest_servers.push_back({address, static_cast<int64_t>(count.starts),
                                        static_cast<int64_t>(count.slot_waits),
                                        static_cast<int64_t>(count.delay_waits)});
  }
}

PageRecord HostDroppedRecord(const CrawlUrl& url, absl::Time now) {
  PageRecord record;
  record.url = url.url;
  record.final_url = url.url;
  record.depth = url.depth;
  record.parent = url.parent;
  record.fetched_at = now;
  record.error = absl::StrCat("host_dropped: ", url.drop_reason);
  return record;
}

}  // namespace crawler
