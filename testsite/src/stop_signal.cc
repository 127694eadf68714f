#include "stop_signal.h"

namespace testsite {

void StopSignal::Notify() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    notified_ = true;
  }
  notified_cv_.notify_all();
}

bool StopSignal::IsNotified() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return notified_;
}

bool StopSignal::WaitFor(std::chrono::milliseconds delay) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return notified_cv_.wait_for(lock, delay, [this] { return notified_; });
}

void StopSignal::Wait() const {
  std::unique_lock<std::mutex> lock(mutex_);
  notified_cv_.wait(lock, [this] { return notified_; });
}

}  // namespace testsite
