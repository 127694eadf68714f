#include "heartbeat.h"

#include <algorithm>
#include <chrono>
#include <mutex>

#include "round_trips.h"

namespace sieve::internal {

namespace {

using Clock = std::chrono::steady_clock;

// When the next host-lease round trip is due; never without host_key.
Clock::time_point HostsDue(const RedisSieve::State& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  if (!s.options.host_key) return Clock::time_point::max();
  return s.last_round_trip + s.options.host_lease_time / 3;
}

// When the next URL-lease renewal is due; never without renew_url_leases.
Clock::time_point UrlsDue(const RedisSieve::State& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  if (!s.options.renew_url_leases) return Clock::time_point::max();
  return s.last_url_renewal + s.options.lease_time / 3;
}

}  // namespace

void RunHeartbeat(RedisSieve::State& s) {
  std::unique_lock<std::mutex> lock(s.mutex);
  while (!s.stopping) {
    const auto now = Clock::now();
    if (now >= HostsDue(s)) {
      if (Usable(s)) SweepPartitions(s);
      s.last_round_trip = Clock::now();  // also when not usable: no spin
      continue;
    }
    if (now >= UrlsDue(s)) {
      if (Usable(s)) RenewUrlLeases(s);
      s.last_url_renewal = Clock::now();
      continue;
    }
    s.closed_changed.wait_until(lock, std::min(HostsDue(s), UrlsDue(s)),
                                [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return s.stopping; });
  }
}

}  // namespace sieve::internal
