// What the crawler tells about its seen-filter: the Sieve's Stats() turned
// into summary.json's filter fields (never a negative or non-finite number;
// an unknown value is null with its reason in null_reasons) and the measured
// loss for the progress and end lines.
#ifndef CRAWLER_APP_FILTER_REPORT_H_
#define CRAWLER_APP_FILTER_REPORT_H_

#include <optional>

#include "crawler/output.h"
#include "sieve/stats.h"

namespace crawler {

// The measured rate of `stats`, or nullopt when the Sieve has none.
std::optional<MeasuredLoss> MeasuredLossOf(const sieve::SieveStats& stats);

// Sets seen_estimate, filter_saturated, filter_bytes, filter_fp_rate,
// filter_fill, fp_measured and their null_reasons.
void FillFilterFields(const sieve::SieveStats& stats, CrawlSummary& summary);

}  // namespace crawler

#endif  // CRAWLER_APP_FILTER_REPORT_H_
