// HostStats: a hash map under one lock; the listing sorts by pages only once,
// at the end, with a partial sort (10 000 of possibly 100 000 hosts).
#include "app/host_stats.h"

#include <algorithm>
#include <vector>

#include "crawler/host_queues.h"

namespace crawler {

HostStats::Entry* HostStats::EntryLocked(const std::string& authority) {
  auto it = hosts_.find(authority);
  if (it != hosts_.end()) return &it->second;
  if (hosts_.size() >= kMaxTracked) return nullptr;
  return &hosts_[authority];
}

void HostStats::Started(const std::string& authority, absl::Time at, absl::Duration interval) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry* entry = EntryLocked(authority);
  if (entry == nullptr) return;
  if (entry->last_start != absl::InfinitePast()) {
    entry->gap_sum += at - entry->last_start;
    entry->min_gap = std::min(entry->min_gap, at - entry->last_start);
    ++entry->gaps;
  }
  entry->last_start = at;
  entry->interval = interval;
}

void HostStats::Add(const PageRecord& record) {
  const std::string authority = AuthorityOf(record.url);
  std::lock_guard<std::mutex> lock(mu_);
  Entry* entry = EntryLocked(authority);
  if (entry == nullptr) {
    ++untracked_records_;
    return;
  }
  ++entry->pages;
  if (record.error.empty()) return;
  ++entry->errors;
  if (ErrorKind(record.error) == "robots") ++entry->robots_blocked;
}

void HostStats::Fill(const std::map<std::string, std::string>& dropped, CrawlSummary* summary,
                     size_t limit) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<HostSummary> all;
  all.reserve(hosts_.size());
  for (const auto& [authority, entry] : hosts_) {
    HostSummary h;
    h.authority = authority;
    h.pages = entry.pages;
    h.errors = entry.errors;
    h.robots_blocked = entry.robots_blocked;
    if (entry.gaps > 0) {
      h.mean_delay_ms = absl::ToDoubleMilliseconds(entry.gap_sum) / static_cast<double>(entry.gaps);
    }
    if (entry.min_gap != absl::InfiniteDuration()) {
      h.min_delay_ms = absl::ToDoubleMilliseconds(entry.min_gap);
    }
    h.delay_samples = entry.gaps;
    h.delay_ms = absl::ToDoubleMilliseconds(entry.interval);
    if (auto it = dropped.find(authority); it != dropped.end()) h.dropped = it->second;
    all.push_back(std::move(h));
  }
  const size_t listed = std::min(all.size(), limit);
  auto busier = [](const HostSummary& a, const HostSummary& b) {
    return a.pages != b.pages ? a.pages > b.pages : a.authority < b.authority;
  };
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(listed), all.end(),
                    busier);
  all.resize(listed);
  summary->hosts_not_listed = static_cast<int64_t>(hosts_.size() - listed) + untracked_records_;
  summary->hosts = std::move(all);
}

void HostStats::Restore(const CrawlSummary& counters) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const HostSummary& h : counters.hosts) {
    Entry* entry = EntryLocked(h.authority);
    if (entry == nullptr) break;
    entry->pages = h.pages;
    entry->errors = h.errors;
    entry->robots_blocked = h.robots_blocked;
    entry->gaps = h.delay_samples;
    entry->gap_sum = absl::Milliseconds(h.mean_delay_ms * static_cast<double>(h.delay_samples));
  }
  // A checkpoint lists every tracked host: what is left unlisted are the
  // records of hosts beyond kMaxTracked.
  untracked_records_ = counters.hosts_not_listed;
}

}  // namespace crawler
