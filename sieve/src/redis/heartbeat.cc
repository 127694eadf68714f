#include "heartbeat.h"

#include <mutex>

#include "round_trips.h"

namespace sieve::internal {

void RunHeartbeat(RedisSieve::State& s) {
  const auto period = s.options.host_lease_time / 3;
  std::unique_lock<std::mutex> lock(s.mutex);
  while (!s.stopping) {
    const auto due = s.last_round_trip + period;
    if (std::chrono::steady_clock::now() >= due) {
      if (Usable(s)) AckAndLease(s, 0);
      s.last_round_trip = std::chrono::steady_clock::now();  // also when not usable: no spin
      continue;
    }
    s.closed_changed.wait_until(lock, due,
                                [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return s.stopping; });
  }
}

}  // namespace sieve::internal
