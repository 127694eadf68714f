// StopSignals: SIGINT/SIGTERM handling for the crawl. The signals are blocked
// in every thread (construct it before any other thread starts) and a watcher
// thread takes them with sigtimedwait: the first one calls `on_first` (a
// graceful stop, from a normal thread, so it may lock and log), the second one
// ends the process at once with exit code 130.
//
// Threading: construct and destroy on the main thread.
#ifndef CRAWLER_APP_STOP_SIGNALS_H_
#define CRAWLER_APP_STOP_SIGNALS_H_

#include <atomic>
#include <functional>
#include <mutex>
#include <thread>

namespace crawler {

class StopSignals {
 public:
  StopSignals();   // blocks SIGINT and SIGTERM and starts the watcher
  ~StopSignals();  // stops the watcher (signals stay blocked)

  // What the first signal does; until set, the first signal only remembers.
  void OnFirstSignal(std::function<void()> on_first);

 private:
  void Watch();

  std::atomic<bool> done_{false};
  std::mutex mu_;
  std::function<void()> on_first_;  // guarded by mu_
  bool signalled_ = false;          // guarded by mu_
  std::thread watcher_;
};

}  // namespace crawler

#endif  // CRAWLER_APP_STOP_SIGNALS_H_
