// HostQueues: per-authority FIFOs and a min-heap of ready times. Each authority
// is in the heap at most once (Host::in_heap); an entry whose time became
// stale (the authority's next_allowed moved later) is re-pushed when popped.
// A dropped authority is pushed at InfinitePast so its URLs drain at once; a
// duplicate heap entry that this may create is harmless (popped, found with
// nothing to do, skipped).
// Servers (HostAddresses): an authority ready on its own but held by its
// server is pushed back to the server's next start, or parked on the server
// when all its slots are taken; a slot given back wakes one parked
// authority (all of them when the server is idle again).
#include "crawler/host_queues.h"

#include <algorithm>
#include <utility>

#include "url/find_first_of.h"

namespace crawler {

std::string AuthorityOf(const std::string& url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return url.substr(0, url.find('/'));
  const size_t host_start = scheme_end + 3;
  const size_t end = FindFirstOf(url, "/?#", host_start);
  std::string authority =
      url.substr(host_start, end == std::string::npos ? std::string::npos : end - host_start);
  const size_t at = authority.rfind('@');
  if (at != std::string::npos) authority.erase(0, at + 1);
  return url.substr(0, host_start) + authority;
}

std::string_view AuthorityView(std::string_view url, std::string& scratch) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return url.substr(0, url.find('/'));
  const size_t host_start = scheme_end + 3;
  const std::string_view prefix = url.substr(0, FindFirstOf(url, "/?#", host_start));
  if (prefix.find('@', host_start) == std::string_view::npos) return prefix;
  scratch = AuthorityOf(std::string(url));
  return scratch;
}

void HostQueues::Add(CrawlUrl url) {
  if (url.authority.empty()) url.authority = AuthorityOf(url.url);
  auto [it, inserted] = hosts_.try_emplace(url.authority);
  Host& host = it->second;
  if (inserted) {
    if (const std::string* reason = policy_->DropReason(it->first)) host.drop_reason = *reason;
  }
  if (host.urls.empty() || host.urls.back().priority >= url.priority) {
    host.urls.push_back(std::move(url));  // the usual case: O(1)
  } else {
    // A higher priority than the tail's: ahead of every lower one, behind
    // its equals (the queue stays sorted by priority, stable).
    const auto at = std::upper_bound(
        host.urls.begin(), host.urls.end(), url.priority,
        [](int32_t priority, const CrawlUrl& queued) { return priority > queued.priority; });
    host.urls.insert(at, std::move(url));
  }
  ++queued_;
  if (cap_ > 0 && host.urls.size() > cap_) ++over_cap_;
  if (cap_ > 0 && host.urls.size() == cap_) at_cap_.insert(it->first);
  MaybeSchedule(it->first, host);
}

void HostQueues::MaybeSchedule(const std::string& authority, Host& host) {
  if (host.in_heap || host.urls.empty()) return;
  if (!host.drop_reason.empty()) {
    host.in_heap = true;
    heap_.push(HeapEntry{absl::InfinitePast(), order_++, authority});
    return;
  }
  if (host.parked) return;  // its server wakes it
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
    if (!host.drop_reason.empty()) {
      if (host.urls.empty()) continue;
      return TakeDropped(it->first, host);
    }
    if (host.next_allowed > entry.ready) {  // stale: a fetch ended and pushed it later
      MaybeSchedule(it->first, host);
      continue;
    }
    if (host.urls.empty() || host.in_flight >= policy_->MaxConnections(it->first)) continue;
    if (!ServerAllows(it->first, host, now)) continue;
    CrawlUrl url = PopFront(host);
    ++host.in_flight;
    ++fetching_;
    host.allowed_before_take = host.next_allowed;
    host.next_allowed = std::max(host.next_allowed, now + policy_->StartInterval(it->first));
    if (!host.address.empty()) {
      Server& server = servers_[host.address];
      ++server.in_flight;
      const absl::Time before = server.next_allowed;
      server.next_allowed = std::max(before, now + policy_->AddressInterval(it->first));
      host.server_take.emplace(before, server.next_allowed);
      host.server_hold = ServerHold::kNone;
      if (ServerCount* count = CountOf(host.address)) ++count->starts;
      url.address = host.address;
    }
    MaybeSchedule(it->first, host);
    return url;
  }
  return std::nullopt;
}

bool HostQueues::ServerAllows(const std::string& authority, Host& host, absl::Time now) {
  if (addresses_ == nullptr) return true;
  if (!host.address_known) {
    std::optional<std::string> address = addresses_->AddressOf(authority);
    if (!address.has_value()) {  // being looked up: look again shortly
      host.in_heap = true;
      heap_.push(HeapEntry{now + kAddressRetry, order_++, authority});
      return false;
    }
    host.address = *std::move(address);
    host.address_known = true;
  }
  if (host.address.empty()) return true;
  auto it = servers_.find(host.address);
  if (it == servers_.end()) return FleetAllows(authority, host, now);  // nothing here in flight
  Server& server = it->second;
  const int connections = policy_->AddressConnections(authority);
  if (connections > 0 && server.in_flight >= connections) {
    host.parked = true;
    host.server_hold = ServerHold::kSlots;
    server.parked.push_back(authority);
    ++server_slot_waits_;
    if (ServerCount* count = CountOf(host.address)) ++count->slot_waits;
    return false;
  }
  if (server.next_allowed > now) {
    host.in_heap = true;
    host.server_hold = ServerHold::kInterval;
    heap_.push(HeapEntry{server.next_allowed, order_++, authority});
    ++server_delay_waits_;
    if (ServerCount* count = CountOf(host.address)) ++count->delay_waits;
    return false;
  }
  return FleetAllows(authority, host, now);
}

bool HostQueues::FleetAllows(const std::string& authority, Host& host, absl::Time now) {
  if (leases_ == nullptr) return true;
  const int connections = policy_->AddressConnections(authority);
  const absl::Duration interval = policy_->AddressInterval(authority);
  if (connections == 0 && interval <= absl::ZeroDuration()) return true;  // no limit to share
  Server& server = servers_[host.address];
  if (server.fleet_retry <= now) {
    ServerLeases::Grant grant = leases_->Take(host.address, connections, interval);
    if (!grant.token.empty()) {
      host.fleet_tokens.push_back(std::move(grant.token));
      return true;
    }
    server.fleet_retry =
        now + (grant.retry_in > absl::ZeroDuration() ? grant.retry_in : kFleetPoll);
  }
  host.in_heap = true;
  host.server_hold = ServerHold::kFleet;
  heap_.push(HeapEntry{server.fleet_retry, order_++, authority});
  ++server_slot_waits_;
  if (ServerCount* count = CountOf(host.address)) ++count->slot_waits;
  return false;
}

void HostQueues::GiveFleetSlot(const std::string& authority, Host& host,
                               const FetchOutcome& outcome, absl::Time now) {
  if (host.fleet_tokens.empty()) return;
  const std::string token = std::move(host.fleet_tokens.back());
  host.fleet_tokens.pop_back();
  // As ReleaseServer: the interval counted again from the request going out.
  absl::Duration next_start_in = absl::ZeroDuration();
  if (outcome.sent_after > absl::ZeroDuration()) {
    next_start_in = -outcome.elapsed + outcome.sent_after + policy_->AddressInterval(authority);
  }
  leases_->Give(host.address, token, std::max(absl::ZeroDuration(), next_start_in));
  // The fleet may have room again: this server's names ask at once.
  auto it = servers_.find(host.address);
  if (it != servers_.end()) it->second.fleet_retry = std::min(it->second.fleet_retry, now);
}

ServerCount* HostQueues::CountOf(const std::string& address) {
  auto it = server_counts_.find(address);
  if (it != server_counts_.end()) return &it->second;
  if (server_counts_.size() >= kMaxServersCounted) return nullptr;
  return &server_counts_[address];
}

std::vector<std::pair<std::string, ServerCount>> HostQueues::BusiestServers(size_t limit) const {
  std::vector<std::pair<std::string, ServerCount>> servers(server_counts_.begin(),
                                                           server_counts_.end());
  const auto busier = [](const auto& a, const auto& b) {
    return a.second.starts != b.second.starts ? a.second.starts > b.second.starts
                                              : a.first < b.first;
  };
  const size_t kept = std::min(limit, servers.size());
  std::partial_sort(servers.begin(), servers.begin() + static_cast<std::ptrdiff_t>(kept),
                    servers.end(), busier);
  servers.resize(kept);
  return servers;
}

ServerHold HostQueues::ServerHoldOf(const std::string& authority, absl::Time ready,
                                    std::string* address) const {
  auto it = hosts_.find(authority);
  if (it == hosts_.end() || it->second.address.empty()) return ServerHold::kNone;
  const Host& host = it->second;
  // Its own next start later than the entry: its delay or a pause holds it.
  if (host.server_hold == ServerHold::kNone || host.next_allowed >= ready) return ServerHold::kNone;
  *address = host.address;
  return host.server_hold;
}

void HostQueues::WakeParked(Server& server) {
  const bool all = server.in_flight == 0;
  while (!server.parked.empty()) {
    const std::string authority = std::move(server.parked.front());
    server.parked.pop_front();
    auto it = hosts_.find(authority);
    if (it == hosts_.end() || !it->second.parked) continue;  // swept or woken already
    it->second.parked = false;
    MaybeSchedule(it->first, it->second);
    if (!all) return;
  }
}

void HostQueues::ReleaseServer(const std::string& authority, Host& host,
                               const FetchOutcome& outcome, bool unfetched, absl::Time now) {
  std::optional<std::pair<absl::Time, absl::Time>> take = std::exchange(host.server_take, {});
  auto it = servers_.find(host.address);
  if (it == servers_.end() || it->second.in_flight == 0) return;
  Server& server = it->second;
  --server.in_flight;
  if (unfetched && take.has_value() && server.next_allowed == take->second) {
    server.next_allowed = take->first;  // nothing was sent: no interval
  } else if (outcome.sent_after > absl::ZeroDuration()) {
    // As PolitePolicy spaces a host: the interval counted again from the
    // request going out, so a slow connect does not bring two requests
    // closer at the server.
    const absl::Duration interval = policy_->AddressInterval(authority);
    if (interval > absl::ZeroDuration()) {
      server.next_allowed =
          std::max(server.next_allowed, now - outcome.elapsed + outcome.sent_after + interval);
    }
  }
  WakeParked(server);
}

CrawlUrl HostQueues::PopFront(Host& host) {
  if (cap_ > 0 && host.urls.size() > cap_) --over_cap_;
  if (cap_ > 0 && host.urls.size() == cap_) at_cap_.erase(host.urls.front().authority);
  CrawlUrl url = std::move(host.urls.front());
  host.urls.pop_front();
  --queued_;
  return url;
}

CrawlUrl HostQueues::TakeDropped(const std::string& authority, Host& host) {
  CrawlUrl url = PopFront(host);
  url.drop_reason = host.drop_reason;
  MaybeSchedule(authority, host);
  return url;
}

void HostQueues::Release(const std::string& authority, const FetchOutcome& outcome,
                         absl::Time now) {
  auto it = hosts_.find(authority);
  if (it == hosts_.end() || it->second.in_flight == 0) return;  // not ours: ignore
  Host& host = it->second;
  --host.in_flight;
  --fetching_;
  const bool unfetched = outcome.status == 0 && !outcome.failed && outcome.error_kind.empty();
  if (unfetched && host.allowed_before_take.has_value()) {
    host.next_allowed = *host.allowed_before_take;  // nothing was sent: no interval
    host.in_heap = false;  // its entry waits for the later time: push one for this
  }
  host.allowed_before_take.reset();
  if (!host.address.empty()) {
    ReleaseServer(authority, host, outcome, unfetched, now);
    GiveFleetSlot(authority, host, outcome, now);
  }
  host.next_allowed = std::max(host.next_allowed, policy_->NextFetchTime(authority, outcome, now));
  if (host.drop_reason.empty()) {
    if (const std::string* reason = policy_->DropReason(authority)) {
      host.drop_reason = *reason;
      host.in_heap = false;  // its entry waits for a later time: push one for now
    }
  }
  MaybeSchedule(it->first, host);
  if (++releases_ % kSweepEvery == 0) MaybeSweep(now);
}

void HostQueues::MaybeSweep(absl::Time now) {
  absl::erase_if(hosts_, [this, now](const auto& entry) {
    const Host& host = entry.second;
    const bool idle =
        host.urls.empty() && host.in_flight == 0 && !host.in_heap && host.next_allowed <= now;
    if (idle) policy_->Forget(entry.first);
    return idle;
  });
  absl::erase_if(servers_, [now](const auto& entry) {
    const Server& server = entry.second;
    return server.in_flight == 0 && server.parked.empty() && server.next_allowed <= now &&
           server.fleet_retry <= now;
  });
}

absl::Time HostQueues::NextReadyTime() const {
  return heap_.empty() ? absl::InfiniteFuture() : heap_.top().ready;
}

const std::string& HostQueues::NextReadyAuthority() const {
  static const std::string* const kNone = new std::string();
  return heap_.empty() ? *kNone : heap_.top().authority;
}

}  // namespace crawler
