// The real clock behind RobotsClock.
#include "crawler/robots_clock.h"

namespace crawler {
namespace {

class SteadyClock : public RobotsClock {
 public:
  TimePoint Now() const override { return std::chrono::steady_clock::now(); }
};

}  // namespace

const RobotsClock& RobotsClock::System() {
  static const SteadyClock* const clock = new SteadyClock();
  return *clock;
}

}  // namespace crawler
