// crawler/robots_clock.h: the time source of the robots cache, behind a
// one-method interface so tests can move time (24 h expiry, back-off) at will.
//
// Example:
//   const crawler::RobotsClock& clock = crawler::RobotsClock::System();
//   auto now = clock.Now();
//
// Threading: implementations must be safe to call concurrently; the system
// clock is.
#ifndef CRAWLER_ROBOTS_CLOCK_H_
#define CRAWLER_ROBOTS_CLOCK_H_

#include <chrono>

namespace crawler {

class RobotsClock {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  virtual ~RobotsClock() = default;
  // Monotonic: lifetimes and retry times are intervals, not dates.
  virtual TimePoint Now() const = 0;
  // std::chrono::steady_clock; lives forever.
  static const RobotsClock& System();
};

}  // namespace crawler

#endif  // CRAWLER_ROBOTS_CLOCK_H_
