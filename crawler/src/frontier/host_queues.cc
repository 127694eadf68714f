// HostQueues: per-authority FIFOs and a min-heap of ready times. Each authority
// is in the heap at most once (Host::in_heap); an entry whose time became
// stale (the authority's next_allowed moved later) is re-pushed when popped.
#include "crawler/host_queues.h"

#include <algorithm>
#include <utility>

namespace crawler {

std::string AuthorityOf(const std::string& url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return url.substr(0, url.find('/'));
  const size_t host_start = scheme_end + 3;
  const size_t end = url.find_first_of("/?#", host_start);
  std::string authority =
      url.substr(host_start, end == std::string::npos ? std::string::npos : end - host_start);
  const size_t at = authority.rfind('@');
  if (at != std::string::npos) authority.erase(0, at + 1);
  return url.substr(0, host_start) + authority;
}

void HostQueues::Add(CrawlUrl url, absl::Time now) {
  (void)now;
  if (url.authority.empty()) url.authority = AuthorityOf(url.url);
  auto [it, inserted] = hosts_.try_emplace(url.authority);
  Host& host = it->second;
  host.urls.push_back(std::move(url));
  ++queued_;
  MaybeSchedule(it->first, host);
}

void HostQueues::MaybeSchedule(const std::string& authority, Host& host) {
  if (host.in_heap || host.urls.empty()) return;
  if (host.in_flight >= policy_->MaxConnections(authority)) return;
  host.in_heap = true;
  heap_.push(HeapEntry{host.next_allowed, order_++, authority});
}

std::optional<CrawlUrl> HostQueues::TakeReady(absl::Time now) {
  while (!heap_.empty() && heap_.top().ready <= now) {
    HeapEntry entry = heap_.top();
    heap_.pop();
    auto it = hosts_.find(entry.authority);
    if (it == hosts_.end()) continue;
    Host& host = it->second;
    host.in_heap = false;
    if (host.next_allowed > entry.ready) {  // stale: a fetch ended and pushed it later
      MaybeSchedule(it->first, host);
      continue;
    }
    if (host.urls.empty() || host.in_flight >= policy_->MaxConnections(it->first)) continue;
    CrawlUrl url = std::move(host.urls.front());
    host.urls.pop_front();
    --queued_;
    ++host.in_flight;
    ++in_flight_;
    host.next_allowed = std::max(host.next_allowed, now + policy_->StartInterval(it->first));
    MaybeSchedule(it->first, host);
    return url;
  }
  return std::nullopt;
}

void HostQueues::Release(const std::string& authority, const FetchOutcome& outcome,
                         absl::Time now) {
  auto it = hosts_.find(authority);
  if (it == hosts_.end() || it->second.in_flight == 0) return;  // not ours: ignore
  Host& host = it->second;
  --host.in_flight;
  --in_flight_;
  host.next_allowed = std::max(host.next_allowed, policy_->NextFetchTime(authority, outcome, now));
  MaybeSchedule(it->first, host);
  if (++releases_ % kSweepEvery == 0) MaybeSweep(now);
}

void HostQueues::MaybeSweep(absl::Time now) {
  absl::erase_if(hosts_, [now](const auto& entry) {
    const Host& host = entry.second;
    return host.urls.empty() && host.in_flight == 0 && !host.in_heap && host.next_allowed <= now;
  });
}

absl::Time HostQueues::NextReadyTime() const {
  return heap_.empty() ? absl::InfiniteFuture() : heap_.top().ready;
}

}  // namespace crawler
