// StopSignal: a one-shot flag that sleeping handlers wait on, so Stop() wakes a
// stalled or delayed handler at once instead of after its full delay.
// Threading: all methods are safe to call concurrently.
#ifndef TESTSITE_SRC_STOP_SIGNAL_H_
#define TESTSITE_SRC_STOP_SIGNAL_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "absl/base/thread_annotations.h"

namespace testsite {

class StopSignal {
 public:
  void Notify();
  bool IsNotified() const;
  // Sleeps for `delay` or until Notify(); returns true if notified.
  bool WaitFor(std::chrono::milliseconds delay) const;
  // Sleeps until Notify().
  void Wait() const;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable notified_cv_;
  bool notified_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace testsite

#endif  // TESTSITE_SRC_STOP_SIGNAL_H_
