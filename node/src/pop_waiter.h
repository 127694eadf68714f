// PopWaiter: the one thread per JS Sieve that runs the pops that must wait.
//
// A pop that finds the queue empty (while a URL is in flight or a producer
// is open) would block; the JS main thread must not, and neither should
// libuv's thread pool (4 threads by default, shared with fs, dns.lookup and
// crypto: four waiting pops would stall every file read of the process). So
// each Sieve owns this thread: Request() asks it for one more pop; it calls
// the blocking sieve_pop once per request, in order, and hands each outcome
// to `deliver` (a thread-safe function that resolves the oldest pending
// promise on the main thread).
//
// Threading: Request() and Stop() are called from the JS main thread; the
// loop runs on the waiter's own thread. Stop() must follow sieve_close (so a
// blocked pop returns) and joins the thread.
#ifndef CRAWL_NODE_POP_WAITER_H_
#define CRAWL_NODE_POP_WAITER_H_

#include <node_api.h>

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>

#include "sieve/sieve_c.h"

namespace crawl_node {

// One pop's outcome, made on the waiter thread and consumed on the main
// thread. `message` is sieve_last_error() copied on the thread that failed
// (the C API keeps it per thread).
struct PopResult {
  sieve_status status = SIEVE_OK;
  sieve_entry entry{};
  std::string message;
  ~PopResult() { sieve_entry_free(&entry); }
};

class PopWaiter {
 public:
  PopWaiter() = default;
  PopWaiter(const PopWaiter&) = delete;
  PopWaiter& operator=(const PopWaiter&) = delete;
  ~PopWaiter() { Stop(); }

  // Starts the thread on first use; each request yields exactly one
  // PopResult through `deliver`.
  void Request(sieve_t* sieve, napi_threadsafe_function deliver);
  // Ends the thread once the requests made so far are served (they return
  // at once after sieve_close) and joins it. Idempotent.
  void Stop();

 private:
  void Run(sieve_t* sieve, napi_threadsafe_function deliver);

  std::mutex mu_;
  std::condition_variable wake_;
  size_t wanted_ = 0;      // guarded by mu_
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace crawl_node

#endif  // CRAWL_NODE_POP_WAITER_H_
