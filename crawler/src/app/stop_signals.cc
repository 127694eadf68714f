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

StopSignals::~StopSignals() {
  done_.store(true);
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
    if (sig < 0) continue;  // EAGAIN (tick) or EINTR
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
