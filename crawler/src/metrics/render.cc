// RenderMetrics: one family at a time, HELP and TYPE first, then its samples.
// Names follow Prometheus' conventions: counters end in _total, units are
// base units (_seconds, _bytes), ratios are plain numbers in [0, 1].
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "crawler/metrics.h"

namespace crawler {
namespace {

std::string EscapeLabelValue(absl::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatReal(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  return absl::StrFormat("%.10g", value);
}

// The exposition text, built family by family.
class Exposition {
 public:
  void Family(absl::string_view name, absl::string_view type, absl::string_view help) {
    absl::StrAppend(&text_, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n");
  }
  void Sample(absl::string_view name, int64_t value) {
    absl::StrAppend(&text_, name, " ", value, "\n");
  }
  void Sample(absl::string_view name, uint64_t value) {
    absl::StrAppend(&text_, name, " ", value, "\n");
  }
  void Real(absl::string_view name, double value) {
    absl::StrAppend(&text_, name, " ", FormatReal(value), "\n");
  }
  // name{label="value"} number
  void Labeled(absl::string_view name, absl::string_view label, absl::string_view value,
               int64_t number) {
    absl::StrAppend(&text_, name, "{", label, "=\"", EscapeLabelValue(value), "\"} ", number, "\n");
  }
  void LabeledReal(absl::string_view name, absl::string_view label, absl::string_view value,
                   double number) {
    absl::StrAppend(&text_, name, "{", label, "=\"", EscapeLabelValue(value), "\"} ",
                    FormatReal(number), "\n");
  }
  // A family of one sample.
  void Counter(absl::string_view name, absl::string_view help, int64_t value) {
    Family(name, "counter", help);
    Sample(name, value);
  }
  void Gauge(absl::string_view name, absl::string_view help, double value) {
    Family(name, "gauge", help);
    Real(name, value);
  }
  std::string Take() { return std::move(text_); }

 private:
  std::string text_;
};

void RenderPageCounters(const CrawlSummary& s, Exposition& out) {
  out.Counter("crawl_pages_total", "Records written to pages.jsonl (every fetch attempt).",
              s.pages);
  out.Counter("crawl_pages_ok_total", "Records of 2xx responses.", s.pages_ok);
  out.Counter("crawl_bytes_total", "Body bytes received (decoded), over all records.", s.bytes);
  out.Family("crawl_errors_total", "counter", "Records with an error, by kind.");
  for (const auto& [kind, n] : s.errors_by_kind) out.Labeled("crawl_errors_total", "kind", kind, n);
  out.Family("crawl_responses_total", "counter", "Records by HTTP status (0: no response).");
  for (const auto& [status, n] : s.status_counts) {
    out.Labeled("crawl_responses_total", "status", absl::StrCat(status), n);
  }
  out.Counter("crawl_redirects_total", "3xx responses with a Location.", s.redirects);
  out.Counter("crawl_robots_fetches_total", "robots.txt requests.", s.robots_fetches);
  out.Counter("crawl_robots_blocked_total",
              "URLs not fetched: disallowed, or robots.txt unreachable.", s.robots_blocked);
  out.Counter("crawl_sitemap_fetches_total", "Sitemap files requested.", s.sitemap_fetches);
  out.Counter("crawl_sitemap_urls_total", "Page URLs listed in sitemaps.", s.sitemap_urls);
  out.Counter("crawl_links_found_total", "Links extracted from pages.", s.links_found);
  out.Counter("crawl_links_new_total", "Extracted links the Sieve accepted as new.", s.links_new);
  out.Family("crawl_links_dropped_total", "counter", "Links not followed, by reason.");
  const std::pair<absl::string_view, int64_t> dropped[] = {
      {"off_scope", s.off_scope},
      {"over_depth", s.over_depth},
      {"too_long", s.too_long},
      {"over_host_limit", s.over_host_limit},
      {"rejected", s.rejected},
      {"nofollow", s.nofollow_skipped},
      {"trap_host_budget", s.trap_host_budget},
      {"trap_query_variants", s.trap_query_variants},
      {"trap_repeated_segments", s.trap_repeated_segments},
      {"trap_duplicate_content", s.trap_duplicate_content}};
  for (const auto& [reason, n] : dropped) {
    out.Labeled("crawl_links_dropped_total", "reason", reason, n);
  }
  out.Gauge("crawl_elapsed_seconds", "Crawl time so far, every run of a resumed crawl.",
            s.duration_s);
}

void RenderQueue(const MetricsSnapshot& m, Exposition& out) {
  const CrawlProgress& p = m.progress;
  out.Gauge("crawl_queue_urls", "URLs waiting to be fetched (Sieve queue plus host queues).",
            static_cast<double>(p.queued));
  out.Gauge("crawl_queue_host_queue_urls", "Of crawl_queue_urls, those in the per-host queues.",
            static_cast<double>(m.host_queue_urls));
  out.Family("crawl_queue_bytes", "gauge",
             "Bytes of queued URLs in memory and in spill files on disk.");
  out.Labeled("crawl_queue_bytes", "where", "memory", static_cast<int64_t>(p.queue_memory_bytes));
  out.Labeled("crawl_queue_bytes", "where", "disk", static_cast<int64_t>(p.queue_disk_bytes));
  out.Gauge("crawl_queue_spilled_segments", "Spill files on disk.",
            static_cast<double>(m.spilled_segments));
  out.Gauge("crawl_in_flight", "Transfers running.", static_cast<double>(p.in_flight));
  out.Gauge("crawl_parsing", "Fetched pages waiting for or in a parser.",
            static_cast<double>(p.parsing));
  out.Gauge("crawl_last_checkpoint_bytes", "Bytes the last checkpoint of this run wrote.",
            static_cast<double>(p.last_checkpoint_bytes));
  out.Gauge("crawl_last_checkpoint_seconds", "Wall time of the last checkpoint of this run.",
            static_cast<double>(p.last_checkpoint_ms) / 1000.0);
}

void RenderFilter(const MetricsSnapshot& m, Exposition& out) {
  const CrawlProgress& p = m.progress;
  out.Gauge("crawl_filter_estimated_urls",
            "The Bloom filter's estimate of distinct URLs seen (+Inf when saturated).",
            p.seen_estimate ? *p.seen_estimate : INFINITY);
  out.Counter("crawl_urls_accepted_total", "URLs the Sieve accepted as new (exact).",
              static_cast<int64_t>(p.accepted));
  out.Gauge("crawl_filter_fill_ratio", "Bits set / bits of the seen-set filter.", p.filter_fill);
  out.Gauge("crawl_filter_bytes", "Memory of the seen-set filter's bit arrays.",
            static_cast<double>(p.filter_bytes));
  out.Gauge("crawl_filter_fp_rate_computed",
            "False-positive rate a new URL sees now, computed from the filter's fill.",
            p.filter_fp_rate);
  if (!p.fp_measured) return;  // nothing sampled yet: no number, rather than a false 0
  const MeasuredLoss& loss = *p.fp_measured;
  out.Gauge("crawl_filter_fp_rate_measured",
            "False-positive rate measured on the Sieve's exact sample (docs/fp-rate.md).",
            loss.rate);
  out.Gauge("crawl_filter_fp_rate_measured_low", "Lower end of the measured rate's 95% interval.",
            loss.rate_low);
  out.Gauge("crawl_filter_fp_rate_measured_high", "Upper end of the measured rate's 95% interval.",
            loss.rate_high);
  out.Gauge("crawl_filter_wrongly_dropped_urls",
            "New URLs wrongly dropped as seen so far, estimated from the measured rate.",
            loss.wrongly_dropped);
}

void RenderHosts(const HostBackoffCounts& h, Exposition& out) {
  out.Family("crawl_host_backoffs_total", "counter",
             "Pauses of a host: after a failure (5xx, connection), a cool-down after "
             "repeated failures, or a 429.");
  out.Labeled("crawl_host_backoffs_total", "reason", "failure",
              static_cast<int64_t>(h.failure_backoffs));
  out.Labeled("crawl_host_backoffs_total", "reason", "cooldown", static_cast<int64_t>(h.cooldowns));
  out.Labeled("crawl_host_backoffs_total", "reason", "throttle", static_cast<int64_t>(h.throttles));
  out.Gauge("crawl_hosts_dropped", "Hosts given up for the rest of the crawl.",
            static_cast<double>(h.dropped_hosts));
  out.Family("crawl_host_slowdowns_total", "counter",
             "--adaptive-delay: a host's rate cut by a 429/503, a failure, or its latency "
             "rising well above its baseline.");
  out.Labeled("crawl_host_slowdowns_total", "reason", "refused",
              static_cast<int64_t>(h.slowdowns_refused));
  out.Labeled("crawl_host_slowdowns_total", "reason", "failed",
              static_cast<int64_t>(h.slowdowns_failed));
  out.Labeled("crawl_host_slowdowns_total", "reason", "latency",
              static_cast<int64_t>(h.slowdowns_latency));
  if (h.adaptive_delay_s.empty()) return;
  out.Family("crawl_host_delay_seconds", "gauge",
             "--adaptive-delay: the current start interval of the hosts with the longest one "
             "(at most 20).");
  for (const auto& [authority, seconds] : h.adaptive_delay_s) {
    out.LabeledReal("crawl_host_delay_seconds", "host", authority, seconds);
  }
}

void RenderServers(const CrawlSummary& s, Exposition& out) {
  out.Gauge("crawl_servers_counted",
            "Servers (address:port the hosts resolve to) the crawl started fetches on, "
            "counted up to 10000.",
            static_cast<double>(s.servers_counted));
  out.Family("crawl_server_waits_total", "counter",
             "A host ready on its own held by its server: for a free connection "
             "(--per-ip, or the fleet's lease) or for the server's start interval (--ip-delay).");
  out.Labeled("crawl_server_waits_total", "reason", "slot", s.server_slot_waits);
  out.Labeled("crawl_server_waits_total", "reason", "delay", s.server_delay_waits);
  if (s.busiest_servers.empty()) return;
  out.Family("crawl_server_starts_total", "counter",
             "Fetches started on each of the 10 servers with the most.");
  for (const ServerSummary& server : s.busiest_servers) {
    out.Labeled("crawl_server_starts_total", "server", server.address, server.starts);
  }
}

void RenderLatency(const LatencyHistogram::Counts& c, Exposition& out) {
  constexpr absl::string_view kName = "crawl_fetch_duration_seconds";
  out.Family(kName, "histogram", "Duration of page transfers (retries included), this run.");
  uint64_t cumulative = 0;
  for (size_t i = 0; i < c.buckets.size(); ++i) {
    cumulative += c.buckets[i];
    const std::string bound = i < LatencyHistogram::kBounds.size()
                                  ? FormatReal(LatencyHistogram::kBounds[i])
                                  : std::string("+Inf");
    out.Labeled("crawl_fetch_duration_seconds_bucket", "le", bound,
                static_cast<int64_t>(cumulative));
  }
  out.Real("crawl_fetch_duration_seconds_sum", c.sum_s);
  out.Sample("crawl_fetch_duration_seconds_count", c.count);
}

}  // namespace

std::string RenderMetrics(const MetricsSnapshot& snapshot) {
  Exposition out;
  RenderPageCounters(snapshot.summary, out);
  RenderQueue(snapshot, out);
  RenderFilter(snapshot, out);
  RenderHosts(snapshot.hosts, out);
  RenderServers(snapshot.summary, out);
  RenderLatency(snapshot.latency, out);
  return out.Take();
}

}  // namespace crawler
