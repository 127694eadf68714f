#include "pop_waiter.h"

namespace crawl_node {

void PopWaiter::Request(sieve_t* sieve, napi_threadsafe_function deliver) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++wanted_;
  }
  if (!thread_.joinable()) thread_ = std::thread([this, sieve, deliver] { Run(sieve, deliver); });
  wake_.notify_one();
}

void PopWaiter::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void PopWaiter::Run(sieve_t* sieve, napi_threadsafe_function deliver) {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [this] { return wanted_ > 0 || stopping_; });
      if (wanted_ == 0) return;  // stopping, every request served
    }
    auto* result = new PopResult;
    result->status = sieve_pop(sieve, &result->entry);
    if (result->status >= SIEVE_INVALID_ARGUMENT) result->message = sieve_last_error();
    {
      std::lock_guard<std::mutex> lock(mu_);
      --wanted_;
    }
    // The queue is unbounded (size 0): a nonblocking call fails only once the
    // function is closing, when nobody waits for the result any more.
    if (napi_call_threadsafe_function(deliver, result, napi_tsfn_nonblocking) != napi_ok) {
      delete result;
    }
  }
}

}  // namespace crawl_node
