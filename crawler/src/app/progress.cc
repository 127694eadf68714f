// The progress line: one line, fixed order, so a TTY refresh overwrites it in
// place and a log grep finds the same fields every 10 s.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "crawler/crawl.h"

namespace crawler {

std::string FormatMeasuredLoss(const std::optional<MeasuredLoss>& m) {
  if (!m || m->sampled_false_positives == 0) return "";
  return absl::StrFormat("wrongly dropped ~%.0f [%.0f..%.0f] (measured p=%.2g [%.2g..%.2g])",
                         m->wrongly_dropped, std::floor(m->wrongly_dropped_low),
                         std::ceil(m->wrongly_dropped_high), m->rate, m->rate_low, m->rate_high);
}

std::string FormatProgress(const CrawlProgress& p, size_t width) {
  // The rate of this run: a resumed crawl's restored pages were not fetched
  // in elapsed_s (counting them showed 89.6/s where ~47/s was true).
  const int64_t this_run = p.pages_this_run >= 0 ? p.pages_this_run : p.pages;
  const double rate = p.elapsed_s > 0 ? static_cast<double>(this_run) / p.elapsed_s : 0.0;
  const std::string seen = p.seen_estimate && std::isfinite(*p.seen_estimate)
                               ? absl::StrFormat("~%.0f", *p.seen_estimate)
                               : std::string("? (filter saturated)");
  // Most telling first: in a narrow terminal the tail is what goes; a log
  // line (width 0) has every field.
  std::vector<std::string> fields = {
      absl::StrFormat("%d pages  %.1f/s  queued %d  in flight %d  errors %d", p.pages, rate,
                      p.queued, p.in_flight, p.errors)};
  if (!p.waiting_for.empty()) fields.push_back("waiting for " + p.waiting_for);
  fields.push_back(absl::StrFormat("parsing %d", p.parsing));
  fields.push_back(absl::StrFormat("seen %s  filter %.1f%% p=%.2g", seen, p.filter_fill * 100,
                                   p.filter_fp_rate));
  const std::string loss = FormatMeasuredLoss(p.fp_measured);
  if (!loss.empty()) fields.push_back(loss);
  fields.push_back(absl::StrFormat("accepted %d  passed over %d", p.accepted, p.passed_over));
  fields.push_back(absl::StrFormat("filter_bytes %d  queue_ram %d  queue_disk %d", p.filter_bytes,
                                   p.queue_memory_bytes, p.queue_disk_bytes));
  if (p.last_checkpoint_bytes > 0) {
    fields.push_back(absl::StrFormat("checkpoint %d ms %d bytes", p.last_checkpoint_ms,
                                     p.last_checkpoint_bytes));
  }
  std::string line;
  for (const std::string& field : fields) {
    const size_t needed = line.empty() ? field.size() : line.size() + 2 + field.size();
    if (width > 0 && needed > width) {
      if (line.empty()) line = field.substr(0, width);  // the first field, cut to fit
      continue;                                         // a later, shorter field may still fit
    }
    if (!line.empty()) line += "  ";
    line += field;
  }
  return line;
}

}  // namespace crawler
