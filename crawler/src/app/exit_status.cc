#include "app/exit_status.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "crawler/cli.h"

namespace crawler {
namespace {

bool AnyResponse(const CrawlSummary& s) {
  return std::any_of(s.status_counts.begin(), s.status_counts.end(),
                     [](const auto& entry) { return entry.first != 0 && entry.second > 0; });
}

std::string ErrorsText(const CrawlSummary& s) {
  if (s.errors_by_kind.empty()) return "no record was written";
  return absl::StrJoin(s.errors_by_kind, ", ", [](std::string* out, const auto& entry) {
    absl::StrAppend(out, entry.first, " x", entry.second);
  });
}

}  // namespace

ExitStatus CrawlExitStatus(const CrawlSummary& s, double fp_rate, bool shared_frontier) {
  if (s.stop_reason == "stalled") {
    return {kExitRuntimeError,
            "the crawl stalled: URLs queued, nothing in flight and no timer (see the log); "
            "`crawl --resume` continues it"};
  }
  const bool handed_nothing = shared_frontier && s.pages == 0;
  if (!AnyResponse(s) && s.stop_reason != "signal" && !handed_nothing) {
    return {kExitNothingFetched, absl::StrCat("no URL could be fetched (", ErrorsText(s),
                                              "); see pages.jsonl for each seed's error")};
  }
  if (s.fp_measured) {
    const MeasuredLoss& m = *s.fp_measured;
    const double threshold = std::max(kLostUrlsThreshold, 2 * fp_rate);
    const double new_urls = static_cast<double>(m.accepted) + m.wrongly_dropped;
    if (m.wrongly_dropped_low > threshold * new_urls) {
      return {kExitUrlsLost,
              absl::StrFormat("the filter wrongly dropped about %.0f new URLs (95%%: %.0f..%.0f), "
                              "over %.3g%% of the %.0f new ones: raise --expected, or use "
                              "--overflow grow without --filter-memory-max",
                              m.wrongly_dropped, m.wrongly_dropped_low, m.wrongly_dropped_high,
                              threshold * 100, new_urls)};
    }
  }
  return {kExitOk, ""};
}

}  // namespace crawler
