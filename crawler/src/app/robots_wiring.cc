// MakeRobots: RobotsCache and RobotsGate options from CrawlOptions, and the
// gate's hooks into the crawl.
#include "app/robots_wiring.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/time/clock.h"
#include "crawler/url.h"
#include "spdlog/spdlog.h"

namespace crawler {
namespace {

RobotsCacheOptions CacheOptionsOf(const CrawlOptions& options) {
  RobotsCacheOptions cache;
  cache.agent = options.user_agent;
  // The cache counts whole seconds; a fraction is rounded up.
  cache.first_retry = std::chrono::seconds(
      std::max<int64_t>(1, static_cast<int64_t>(std::ceil(options.robots_retry_s))));
  cache.max_retry = std::max(cache.max_retry, cache.first_retry);
  return cache;
}

RobotsGateOptions GateOptionsOf(const CrawlOptions& options) {
  RobotsGateOptions gate;
  gate.max_tries = options.retries + 1;
  gate.sitemaps = options.sitemaps;
  gate.obey_robots = options.robots;
  return gate;
}

// A sitemap's <loc> values, normalized, filtered as links of depth 1 and
// offered to the Frontier with the sitemap as their parent, each with its
// <priority>.
void OfferSitemapUrls(const RobotsWiring& wiring, const NormalizeOptions& normalize,
                      const std::vector<std::string>& urls, const std::vector<double>& priorities,
                      const std::string& sitemap) {
  LinkCounts counts;
  std::vector<std::string> candidates;
  candidates.reserve(urls.size());
  // The filter keeps a subset in order; a URL listed twice keeps its first
  // <priority>.
  absl::flat_hash_map<std::string, double> priority_of;
  for (size_t i = 0; i < urls.size(); ++i) {
    absl::StatusOr<Url> url = Url::Parse(urls[i]);
    absl::StatusOr<std::string> normalized =
        url.ok() ? NormalizeForSeen(*url, normalize) : url.status();
    if (normalized.ok()) {
      if (i < priorities.size()) priority_of.emplace(*normalized, priorities[i]);
      candidates.push_back(std::move(*normalized));
    } else {
      ++counts.rejected;
    }
  }
  const std::vector<std::string> follow = wiring.processor->Filter(candidates, 1, &counts);
  std::vector<double> follow_priorities;
  follow_priorities.reserve(follow.size());
  for (const std::string& url : follow) {
    const auto it = priority_of.find(url);
    follow_priorities.push_back(it == priority_of.end() ? 0.5 : it->second);
  }
  if (!follow.empty()) wiring.frontier->OfferLinks(follow, 1, sitemap, follow_priorities);
  wiring.stats->AddLinks(counts);
}

// --sitemap URLs as the Frontier keys hosts (normalized); one that does not
// parse was refused with the options already.
std::vector<std::string> SitemapUrlsOf(const CrawlOptions& options) {
  NormalizeOptions normalize;
  normalize.max_length = options.max_url_length;
  std::vector<std::string> out;
  for (const std::string& raw : options.sitemap_urls) {
    absl::StatusOr<Url> url = Url::Parse(raw);
    absl::StatusOr<std::string> normalized =
        url.ok() ? NormalizeForSeen(*url, normalize) : url.status();
    if (normalized.ok()) {
      out.push_back(std::move(*normalized));
    } else {
      spdlog::warn("--sitemap {}: {}", raw, std::string(normalized.status().message()));
    }
  }
  return out;
}

RobotsGateHooks HooksOf(const CrawlOptions& options, const RobotsWiring& wiring) {
  RobotsGateHooks hooks;
  hooks.submit = wiring.submit;
  hooks.wake = wiring.wake;
  hooks.on_robots_fetched = wiring.on_robots_fetched;
  hooks.on_sitemap_fetched = wiring.on_robots_fetched;
  hooks.commit_scope = wiring.commit_scope;
  hooks.on_blocked = [wiring](const CrawlUrl& url, const std::string& error) {
    const PageRecord record = RobotsBlockedRecord(url, error);
    absl::Status written = wiring.log->Append(record);
    // A failed log stays failed: the next page's Append reports it and stops.
    if (!written.ok()) spdlog::error("{}", std::string(written.message()));
    wiring.stats->Add(record, LinkCounts{});
  };
  NormalizeOptions normalize;
  normalize.max_length = options.max_url_length;
  hooks.on_sitemap_urls = [wiring, normalize](const std::vector<std::string>& urls,
                                              const std::vector<double>& priorities,
                                              const std::string& sitemap) {
    OfferSitemapUrls(wiring, normalize, urls, priorities, sitemap);
  };
  return hooks;
}

}  // namespace

absl::StatusOr<RobotsParts> MakeRobots(const CrawlOptions& options, RobotsWiring wiring) {
  RobotsParts parts;
  if (!options.robots) {
    spdlog::warn("robots.txt ignored: only crawl sites you own or may crawl this way");
    // --sitemap still needs the gate's sitemap fetches; it then passes every URL.
    if (options.sitemap_urls.empty()) return parts;
  }
  absl::StatusOr<std::unique_ptr<RobotsCache>> cache = RobotsCache::Create(CacheOptionsOf(options));
  if (!cache.ok()) return cache.status();
  parts.cache = std::move(*cache);
  parts.gate = std::make_unique<RobotsGate>(parts.cache.get(), wiring.frontier,
                                            GateOptionsOf(options), HooksOf(options, wiring));
  // --sitemap: queued now, before the loop's first end check sees the Frontier.
  if (!options.sitemap_urls.empty()) parts.gate->QueueSitemapUrls(SitemapUrlsOf(options));
  return parts;
}

PageRecord RobotsBlockedRecord(const CrawlUrl& url, const std::string& error) {
  PageRecord record;
  record.url = url.url;
  record.depth = url.depth;
  record.parent = url.parent;
  record.fetched_at = absl::Now();
  record.error = error;
  return record;
}

void RobotsParts::AddStats(CrawlSummary* summary) const {
  if (gate == nullptr) return;
  const RobotsGateStats stats = gate->Stats();
  summary->robots_fetches = static_cast<int64_t>(stats.robots_fetches);
  summary->robots_blocked = static_cast<int64_t>(stats.blocked + stats.gave_up);
  summary->sitemap_fetches = static_cast<int64_t>(stats.sitemap_fetches);
  summary->sitemap_urls = static_cast<int64_t>(stats.sitemap_urls);
}

}  // namespace crawler
