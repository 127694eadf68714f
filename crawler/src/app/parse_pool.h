// ParsePool: N threads that run one function over queued jobs, FIFO. The crawl
// uses it for the parse step, so Gumbo runs on every core and never on the
// curl threads. Unbounded: the scheduler bounds what it lets in (Backlog()).
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
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back(std::move(job));
      ++backlog_;
    }
    cv_.notify_one();
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
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return closing_ || !jobs_.empty(); });
        if (jobs_.empty()) return;  // closing and drained
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
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
  bool closing_ = false;  // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace crawler

#endif  // CRAWLER_APP_PARSE_POOL_H_
