// ServerLoad: the bucket refills continuously at rate_limit, capped at
// rate_burst; the arrival rate decays as exp(-dt / 1 s) and each arrival
// adds 1 / (1 s), so a steady rate r reads r.
#include "server_load.h"

#include <algorithm>
#include <cmath>

namespace testsite {

ServerLoad::ServerLoad(const SiteOptions& options)
    : rate_limit_(options.rate_limit),
      burst_(std::max(1, options.rate_burst)),
      capacity_(options.load_capacity),
      base_ms_(options.latency_ms),
      tokens_(burst_) {}

bool ServerLoad::Needed(const SiteOptions& options) {
  return options.rate_limit > 0 || options.load_capacity > 0;
}

bool ServerLoad::Admit(Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mutex_);
  const double dt =
      started_ ? std::max(0.0, std::chrono::duration<double>(now - last_).count()) : 0.0;
  started_ = true;
  last_ = std::max(last_, now);
  recent_rate_ = recent_rate_ * std::exp(-dt) + 1.0;
  if (rate_limit_ <= 0) return true;
  tokens_ = std::min(burst_, tokens_ + dt * rate_limit_);
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

std::chrono::microseconds ServerLoad::ExtraLatency(Clock::time_point now) const {
  if (capacity_ <= 0 || base_ms_ <= 0) return std::chrono::microseconds(0);
  std::lock_guard<std::mutex> lock(mutex_);
  const double dt = std::max(0.0, std::chrono::duration<double>(now - last_).count());
  const double rate = recent_rate_ * std::exp(-dt);
  return std::chrono::microseconds(static_cast<int64_t>(base_ms_ * 1000 * rate / capacity_));
}

}  // namespace testsite
