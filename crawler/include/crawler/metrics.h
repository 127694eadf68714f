// Metrics: a crawl's numbers in the Prometheus text exposition format
// (version 0.0.4), for `crawl --metrics ADDR:PORT` (metrics_server.h serves
// them). Every metric is prefixed `crawl_`, carries # HELP and # TYPE lines,
// and the counters that summary.json also holds (pages, bytes, errors by
// kind, statuses, redirects, robots and sitemap fetches, links) read the same
// numbers, so a scrape taken after the crawl ended equals summary.json.
//
//   crawler::LatencyHistogram latency;                 // one per crawl
//   latency.Observe(result.fetch_ms / 1000.0);         // per transfer, any thread
//   crawler::MetricsSnapshot snapshot{.summary = ..., .progress = ...,
//                                     .latency = latency.Read()};
//   std::string body = crawler::RenderMetrics(snapshot);
//
// Threading: LatencyHistogram's methods are safe to call concurrently (relaxed
// atomics: a scrape may see a bucket one transfer ahead of the sum, never a
// torn number; the count is the buckets' total). RenderMetrics is a pure function.
#ifndef CRAWLER_METRICS_H_
#define CRAWLER_METRICS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "crawler/crawl.h"
#include "crawler/output.h"

namespace crawler {

// Fetch durations in buckets, as a Prometheus histogram. Fixed memory: 13
// counters and a sum, whatever the crawl's length.
class LatencyHistogram {
 public:
  // Upper bounds in seconds, le="0.005" ... le="30"; a +Inf bucket follows.
  // From a loopback fetch (under 5 ms) to --timeout's default (30 s).
  static constexpr std::array<double, 12> kBounds = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                     0.5,   1,    2.5,   5,    10,  30};

  struct Counts {
    // Non-cumulative: buckets[i] counts observations in (kBounds[i-1],
    // kBounds[i]]; the last one those above kBounds.back().
    std::array<uint64_t, kBounds.size() + 1> buckets{};
    uint64_t count = 0;
    double sum_s = 0;
  };

  // One transfer's duration; a negative or NaN value counts as 0.
  void Observe(double seconds);
  Counts Read() const;

 private:
  std::array<std::atomic<uint64_t>, kBounds.size() + 1> buckets_{};
  std::atomic<uint64_t> sum_us_{0};  // microseconds: an integer adds atomically
};

// The politeness policy's reactions to hosts (PolitePolicy::Stats).
struct HostBackoffCounts {
  uint64_t failure_backoffs = 0;  // back-offs after a 5xx or connection failure
  uint64_t cooldowns = 0;         // cool-downs after drop_after failures in a row
  uint64_t throttles = 0;         // pauses after a 429 (with or without Retry-After)
  uint64_t dropped_hosts = 0;     // hosts given up for the rest of the crawl
  // --adaptive-delay: slow-downs by reason, and the hosts with the longest
  // adaptive delay now (at most kAdaptiveHostsListed, longest first).
  uint64_t slowdowns_refused = 0;  // 429 or 503
  uint64_t slowdowns_failed = 0;   // other 5xx, timeouts, connection failures
  uint64_t slowdowns_latency = 0;  // latency well above the host's baseline
  static constexpr size_t kAdaptiveHostsListed = 20;
  std::vector<std::pair<std::string, double>> adaptive_delay_s;  // authority, seconds
};

// Everything one scrape shows.
struct MetricsSnapshot {
  // The counters as summary.json would write them now (hosts not needed).
  CrawlSummary summary;
  // Queue, in-flight and filter gauges.
  CrawlProgress progress;
  uint64_t host_queue_urls = 0;  // of progress.queued, those in the per-host queues
  uint64_t spilled_segments = 0;
  HostBackoffCounts hosts;
  LatencyHistogram::Counts latency;
};

// The exposition text: "# HELP", "# TYPE" and `name{labels} value` lines,
// each line ending in '\n'. Label values are escaped (\\, \", \n); a value
// that is unknown (the filter's estimate when saturated) is "+Inf", or the
// metric is left out (the measured rate before any URL was sampled).
std::string RenderMetrics(const MetricsSnapshot& snapshot);

// The Content-Type of RenderMetrics' text.
inline constexpr char kMetricsContentType[] = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace crawler

#endif  // CRAWLER_METRICS_H_
