#include "app/stop_signals.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "spdlog/spdlog.h"

namespace crawler {
namespace {

sigset_t StopSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

StopSignals::StopSignals() {
  const sigset_t set = StopSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  watcher_ = std::thread([this] { Watch(); });
}

// The watcher is woken at once rather than at its next tick: a short crawl
// otherwise waited up to 200 ms (100 on average) here before exiting. The
// signal goes to the watcher thread alone, which has it blocked and takes it
// in sigtimedwait, where done_ makes it a wake-up, not a stop.
StopSignals::~StopSignals() {
  done_.store(true);
  pthread_kill(watcher_.native_handle(), SIGTERM);
  watcher_.join();
}

// The callback runs under mu_ (here and in Watch), so replacing it, e.g. with
// nullptr before the object it stops is destroyed, waits for a call in progress.
void StopSignals::OnFirstSignal(std::function<void()> on_first) {
  std::lock_guard<std::mutex> lock(mu_);
  on_first_ = std::move(on_first);
  if (signalled_ && on_first_) on_first_();
}

void StopSignals::Watch() {
  const sigset_t set = StopSet();
  const timespec tick{0, 200'000'000};  // re-check done_ five times a second
  int received = 0;
  while (!done_.load()) {
    const int sig = sigtimedwait(&set, nullptr, &tick);
    if (sig < 0 || done_.load()) continue;  // EAGAIN (tick), EINTR, or the destructor's wake-up
    if (++received >= 2) {
      static constexpr char kMsg[] = "\ncrawl: second signal, exiting now\n";
      (void)!::write(STDERR_FILENO, kMsg, sizeof(kMsg) - 1);
      ::_exit(130);
    }
    spdlog::warn("{}: stopping (finishing in-flight fetches; send again to exit at once)",
                 sig == SIGINT ? "SIGINT" : "SIGTERM");
    std::lock_guard<std::mutex> lock(mu_);
    signalled_ = true;
    if (on_first_) on_first_();
  }
}

}  // namespace crawler
