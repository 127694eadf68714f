// The progress line: one line, fixed order, so a TTY refresh overwrites it in
// place and a log grep finds the same fields every 10 s.
#include <cmath>
#include <string>

#include "absl/strings/str_format.h"
#include "crawler/crawl.h"

namespace crawler {

std::string FormatMeasuredLoss(const std::optional<MeasuredLoss>& m) {
  if (!m || m->sampled_false_positives == 0) return "";
  return absl::StrFormat("wrongly dropped ~%.0f [%.0f..%.0f] (measured p=%.2g [%.2g..%.2g])",
                         m->wrongly_dropped, std::floor(m->wrongly_dropped_low),
                         std::ceil(m->wrongly_dropped_high), m->rate, m->rate_low, m->rate_high);
}

std::string FormatProgress(const CrawlProgress& p) {
  const double rate = p.elapsed_s > 0 ? static_cast<double>(p.pages) / p.elapsed_s : 0.0;
  const std::string seen = p.seen_estimate && std::isfinite(*p.seen_estimate)
                               ? absl::StrFormat("~%.0f", *p.seen_estimate)
                               : std::string("? (filter saturated)");
  std::string line = absl::StrFormat(
      "%d pages  %.1f/s  queued %d  in flight %d  parsing %d  seen %s  filter %.1f%% "
      "p=%.2g  errors %d  accepted %d  passed over %d  filter_bytes %d  queue_ram %d  "
      "queue_disk %d",
      p.pages, rate, p.queued, p.in_flight, p.parsing, seen, p.filter_fill * 100, p.filter_fp_rate,
      p.errors, p.accepted, p.passed_over, p.filter_bytes, p.queue_memory_bytes,
      p.queue_disk_bytes);
  if (p.last_checkpoint_bytes > 0) {
    line += absl::StrFormat("  checkpoint %d ms %d bytes", p.last_checkpoint_ms,
                            p.last_checkpoint_bytes);
  }
  const std::string loss = FormatMeasuredLoss(p.fp_measured);
  if (!loss.empty()) line += "  " + loss;
  return line;
}

}  // namespace crawler
