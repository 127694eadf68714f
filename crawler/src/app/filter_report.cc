#include "app/filter_report.h"

#include <cmath>
#include <string>

namespace crawler {

std::optional<MeasuredLoss> MeasuredLossOf(const sieve::SieveStats& stats) {
  if (!stats.fp_measured) return std::nullopt;
  const sieve::MeasuredFpRate& m = *stats.fp_measured;
  MeasuredLoss loss;
  loss.sample_one_in = m.sample_one_in;
  loss.sampled_urls = m.sampled_new;
  loss.sampled_false_positives = m.sampled_false_positives;
  loss.sample_bytes = m.sample_bytes;
  loss.accepted = stats.accepted;
  loss.rate = m.rate;
  loss.rate_low = m.rate_low;
  loss.rate_high = m.rate_high;
  loss.wrongly_dropped = m.wrongly_dropped;
  loss.wrongly_dropped_low = m.wrongly_dropped_low;
  loss.wrongly_dropped_high = m.wrongly_dropped_high;
  return loss;
}

void FillFilterFields(const sieve::SieveStats& stats, CrawlSummary& summary) {
  summary.filter_saturated = stats.filter_saturated;
  if (stats.estimated_count && std::isfinite(*stats.estimated_count)) {
    summary.seen_estimate = static_cast<int64_t>(std::llround(*stats.estimated_count));
  } else {
    summary.seen_estimate = std::nullopt;
    summary.null_reasons["seen_estimate"] =
        "the filter is saturated (every bit set): its fill no longer tells how many URLs it "
        "holds, and every new URL is dropped as seen";
  }
  summary.filter_bytes = static_cast<int64_t>(stats.filter_bytes);
  summary.filter_fp_rate = stats.current_fp_rate;
  summary.filter_fill = stats.fill_ratio;
  summary.fp_measured = MeasuredLossOf(stats);
  if (!summary.fp_measured) {
    summary.null_reasons["fp_measured"] =
        stats.fp_measured_unknown.empty() ? "not measured" : stats.fp_measured_unknown;
  }
}

}  // namespace crawler
