// ParsePool: N threads that run one function over queued jobs, FIFO. The crawl
// uses it for the parse step, so Gumbo runs on every core and never on the
// curl threads. Unbounded: the scheduler bounds what it lets in (Backlog()).
//
// At most one wake-up is on its way at a time: Submit signals only when a
// thread sleeps and no signal is in flight, and the woken thread, finding
// more jobs queued, wakes the next sleeper itself. The submitters are the
// fetchers' curl loops: glibc's pthread_cond_signal, called while a thread
// an earlier signal woke has not run yet, blocks in the condition
// variable's group switch until that thread gets a core. On the synthetic
// 20k site with two parsers that was ~1,000 sleeps of a fetch thread a
// crawl (perf, futex waits from pthread_cond_signal, under load): its
// transfers stalled while a parser waited for the core the fetcher gave up.
//
// Threading: Submit and Backlog from any thread; Finish once, not from a job.
#ifndef CRAWLER_APP_PARSE_POOL_H_
#define CRAWLER_APP_PARSE_POOL_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace crawler {

template <typename Job>
class ParsePool {
 public:
  ParsePool(int threads, std::function<void(Job&&)> work) : work_(std::move(work)) {
    for (int i = 0; i < (threads < 1 ? 1 : threads); ++i) threads_.emplace_back([this] { Loop(); });
  }
  ~ParsePool() { Finish(); }

  void Submit(Job job) {
    bool wake = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back(std::move(job));
      ++backlog_;
      if (sleeping_ > 0 && signalled_ == 0) {
        ++signalled_;
        wake = true;
      }
    }
    if (wake) cv_.notify_one();
  }

  // Jobs submitted and not finished (queued or running).
  size_t Backlog() {
    std::lock_guard<std::mutex> lock(mu_);
    return backlog_;
  }

  // Runs every queued job, then joins the threads. Idempotent.
  void Finish() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closing_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  void Loop() {
    for (;;) {
      Job job;
      bool chain = false;
      {
        std::unique_lock<std::mutex> lock(mu_);
        while (!closing_ && jobs_.empty()) {
          ++sleeping_;
          cv_.wait(lock);
          --sleeping_;
          // A signal is spent by the first thread that wakes, whichever it
          // was meant for: a job it cannot find was taken by a thread that
          // was running, and one it leaves queued it takes now.
          if (signalled_ > 0) --signalled_;
        }
        if (jobs_.empty()) return;  // closing and drained
        job = std::move(jobs_.front());
        jobs_.pop_front();
        // More queued: the next sleeper is woken from here, not from Submit.
        chain = !jobs_.empty() && sleeping_ > 0 && signalled_ == 0;
        if (chain) ++signalled_;
      }
      if (chain) cv_.notify_one();
      work_(std::move(job));
      std::lock_guard<std::mutex> lock(mu_);
      --backlog_;
    }
  }

  const std::function<void(Job&&)> work_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;  // guarded by mu_
  size_t backlog_ = 0;    // guarded by mu_
  int sleeping_ = 0;      // threads in cv_.wait; guarded by mu_
  int signalled_ = 0;     // 0 or 1: a notify_one no thread has woken from yet; guarded by mu_
  bool closing_ = false;  // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace crawler

#endif  // CRAWLER_APP_PARSE_POOL_H_
