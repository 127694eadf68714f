// CrawlStats: the counters behind the progress line and summary.json. Written
// by the parser threads (one Add per page) and read by the scheduler.
//
// Threading: every method is safe to call concurrently.
#ifndef CRAWLER_APP_CRAWL_STATS_H_
#define CRAWLER_APP_CRAWL_STATS_H_

#include <cstdint>
#include <mutex>
#include <string>

#include "app/host_stats.h"
#include "crawler/output.h"

namespace crawler {

// What one processed page adds to the link counters.
struct LinkCounts {
  int64_t off_scope = 0;  // off-scope, not allowed or denied
  int64_t over_depth = 0;
  int64_t too_long = 0;
  int64_t rejected = 0;
  int64_t nofollow_skipped = 0;
  int64_t rejected_ext = 0;      // not followed: --reject-ext
  int64_t trap_host_budget = 0;  // not followed: TrapGuard (trap_guard.h)
  int64_t trap_query_variants = 0;
  int64_t trap_repeated_segments = 0;
  int64_t trap_duplicate_content = 0;  // not followed: DuplicateContentGuard
};

// Whether records of error kind `kind` count among a crawl's errors (the
// progress line's and the end line's): not "robots" (a URL robots.txt
// forbids was obeyed, not failed) nor "body_too_large" (a page cut at
// --max-body is a page, flagged `truncated`).
// errors_by_kind in summary.json still lists them.
inline bool CountsAsError(const std::string& kind) {
  return kind != "robots" && kind != "body_too_large";
}

// The errors of `errors_by_kind` that CountsAsError.
template <typename Map>
int64_t CountedErrors(const Map& errors_by_kind) {
  int64_t n = 0;
  for (const auto& [kind, count] : errors_by_kind) n += CountsAsError(kind) ? count : 0;
  return n;
}

class CrawlStats {
 public:
  void Add(const PageRecord& record, const LinkCounts& links) {
    hosts_.Add(record);  // its own lock
    std::lock_guard<std::mutex> lock(mu_);
    ++s_.pages;
    // A page cut at --max-body is a page (flagged `truncated`), not an error.
    if (record.status >= 200 && record.status < 300 && (record.error.empty() || record.truncated)) {
      ++s_.pages_ok;
    }
    AddRevisitLocked(record);
    if (!record.error.empty()) ++s_.errors_by_kind[ErrorKind(record.error)];
    ++s_.status_counts[record.status];
    s_.links_found += record.links_found;
    s_.links_new += record.links_new;
    if (!record.redirect_to.empty()) ++s_.redirects;
    AddLinksLocked(links);
  }
  // A recrawl began: its counts go into summary.json, with the previous
  // log's damaged lines skipped.
  void StartRecrawl(int64_t skipped_lines) {
    std::lock_guard<std::mutex> lock(mu_);
    s_.recrawl = true;
    s_.previous_lines_skipped += skipped_lines;
  }
  // For links not tied to a written page (the seeds).
  void AddLinks(const LinkCounts& links) {
    std::lock_guard<std::mutex> lock(mu_);
    AddLinksLocked(links);
  }
  // On resume: continue from the checkpoint's counters.
  void Restore(const CrawlSummary& counters) {
    std::lock_guard<std::mutex> lock(mu_);
    s_ = counters;
    s_.hosts.clear();  // hosts() holds them (HostStats::Restore)
    s_.hosts_not_listed = 0;
  }
  CrawlSummary Snapshot() const {
    std::lock_guard<std::mutex> lock(mu_);
    return s_;
  }
  int64_t Errors() const {
    std::lock_guard<std::mutex> lock(mu_);
    return CountedErrors(s_.errors_by_kind);
  }
  // Per-host counters of summary.json, fed by Add.
  HostStats& hosts() { return hosts_; }

 private:
  // A recrawl's counts (summary.json "recrawl"): each verdict, and the body
  // bytes a 304 or a carried record did not download (their `bytes` is the
  // previous body's size), which are not in `bytes`.
  void AddRevisitLocked(const PageRecord& record) {
    const bool saved =
        record.revisit == Revisit::kNotModified || record.revisit == Revisit::kCarried;
    (saved ? s_.bytes_saved : s_.bytes) += record.bytes;
    switch (record.revisit) {
      case Revisit::kNone:
        return;
      case Revisit::kNew:
        ++s_.new_pages;
        return;
      case Revisit::kNotModified:
        ++s_.not_modified;
        return;
      case Revisit::kUnchanged:
        ++s_.unchanged;
        return;
      case Revisit::kChanged:
        ++s_.changed;
        return;
      case Revisit::kGone:
        ++s_.gone;
        return;
      case Revisit::kCarried:
        ++s_.carried;
        return;
    }
  }
  void AddLinksLocked(const LinkCounts& links) {
    s_.off_scope += links.off_scope;
    s_.over_depth += links.over_depth;
    s_.too_long += links.too_long;
    s_.rejected += links.rejected;
    s_.nofollow_skipped += links.nofollow_skipped;
    s_.rejected_ext += links.rejected_ext;
    s_.trap_host_budget += links.trap_host_budget;
    s_.trap_query_variants += links.trap_query_variants;
    s_.trap_repeated_segments += links.trap_repeated_segments;
    s_.trap_duplicate_content += links.trap_duplicate_content;
  }

  HostStats hosts_;
  mutable std::mutex mu_;
  CrawlSummary s_;  // guarded by mu_
};

}  // namespace crawler

#endif  // CRAWLER_APP_CRAWL_STATS_H_
