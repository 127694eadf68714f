// The progress line: one line, fixed order, so a TTY refresh overwrites it in
// place and a log grep finds the same fields every 10 s.
#include <string>

#include "absl/strings/str_format.h"
#include "crawler/crawl.h"

namespace crawler {

std::string FormatProgress(const CrawlProgress& p) {
  const double rate = p.elapsed_s > 0 ? static_cast<double>(p.pages) / p.elapsed_s : 0.0;
  std::string line = absl::StrFormat(
      "%d pages  %.1f/s  queued %d  in flight %d  parsing %d  seen ~%.0f  filter %.1f%% "
      "p=%.2g  errors %d  accepted %d  passed over %d  filter_bytes %d  queue_ram %d  "
      "queue_disk %d",
      p.pages, rate, p.queued, p.in_flight, p.parsing, p.seen_estimate, p.filter_fill * 100,
      p.filter_fp_rate, p.errors, p.accepted, p.passed_over, p.filter_bytes, p.queue_memory_bytes,
      p.queue_disk_bytes);
  if (p.last_checkpoint_bytes > 0) {
    line += absl::StrFormat("  checkpoint %d ms %d bytes", p.last_checkpoint_ms,
                            p.last_checkpoint_bytes);
  }
  return line;
}

}  // namespace crawler
