// HostStats: the per-host counters of summary.json ("hosts"): records,
// errors and robots blocks counted from the pages.jsonl records (so every
// path that writes a record is counted), the mean and smallest gap between
// consecutive request starts as the scheduler handed them out, the host's
// start interval at its last start, and the drop reason.
//
//   HostStats hosts;
//   hosts.Started(url.authority, absl::Now(), interval);  // scheduler, per fetch
//   hosts.Add(record);                                // per pages.jsonl record
//   hosts.Fill(dropped_by_policy, &summary);          // at the end
//
// Memory: one ~200-byte entry per authority (measured: 196 bytes per host
// with its name, tests/crawler/app/host_stats_test.cc), for at most
// kMaxTracked (100 000, ~20 MB) authorities; records of further hosts are counted only in
// hosts_not_listed (each such record adds one, since no entry remembers that
// the host was seen). The summary lists the kMaxListed (10 000) busiest.
//
// Threading: every method is safe to call concurrently.
#ifndef CRAWLER_APP_HOST_STATS_H_
#define CRAWLER_APP_HOST_STATS_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "crawler/output.h"

namespace crawler {

class HostStats {
 public:
  static constexpr size_t kMaxTracked = 100'000;
  static constexpr size_t kMaxListed = 10'000;

  // A fetch of `authority` was handed to the fetcher at `at` (the time the
  // Frontier was asked with, so the gaps are those its delay checked);
  // `interval`: the host's start interval then (HostPolicy::StartInterval:
  // --delay, Crawl-delay or --adaptive-delay's value), summary.json's delay_ms.
  void Started(const std::string& authority, absl::Time at,
               absl::Duration interval = absl::ZeroDuration());
  // One pages.jsonl record (its authority is AuthorityOf(record.url)).
  void Add(const PageRecord& record);
  // Writes summary->hosts (busiest first, at most `limit`) and
  // summary->hosts_not_listed; `dropped` maps authority -> reason. A
  // checkpoint takes every host (limit kMaxTracked).
  void Fill(const std::map<std::string, std::string>& dropped, CrawlSummary* summary,
            size_t limit = kMaxListed) const;
  // On --resume: the counters a checkpoint's Fill wrote, before any Add.
  void Restore(const CrawlSummary& counters);

 private:
  struct Entry {
    int64_t pages = 0;
    int64_t errors = 0;
    int64_t robots_blocked = 0;
    absl::Time last_start = absl::InfinitePast();
    absl::Duration interval;  // at last_start
    absl::Duration gap_sum;
    absl::Duration min_gap = absl::InfiniteDuration();  // in this run
    int64_t gaps = 0;
  };
  Entry* EntryLocked(const std::string& authority);  // null beyond kMaxTracked

  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, Entry> hosts_;  // guarded by mu_
  int64_t untracked_records_ = 0;                  // guarded by mu_
};

}  // namespace crawler

#endif  // CRAWLER_APP_HOST_STATS_H_
