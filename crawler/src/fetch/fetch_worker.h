// FetchWorker: one fetcher thread driving up to `slots` concurrent transfers
// on its own curl multi handle, hence its own connection cache. The Fetcher
// spreads requests over a few of these.
//
// Life: Create, then Enqueue from any thread; Stop(deadline) from any thread
// ends intake, aborts what is still queued, lets running transfers finish
// until the deadline and abandons the rest; Join waits for the thread. The
// callback runs on the worker's thread and may call Enqueue (of any worker).
#ifndef CRAWLER_SRC_FETCH_FETCH_WORKER_H_
#define CRAWLER_SRC_FETCH_FETCH_WORKER_H_

#include <curl/curl.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "crawler/fetch.h"
#include "fetch/fetch_counters.h"
#include "fetch/transfer.h"

namespace crawler::fetch_internal {

class FetchWorker {
 public:
  using Clock = std::chrono::steady_clock;

  // `context`, `callback` and `counters` must outlive the worker. Starts the thread.
  static absl::StatusOr<std::unique_ptr<FetchWorker>> Create(const TransferContext& context,
                                                             const Fetcher::Callback* callback,
                                                             FetchCounters* counters, int slots);
  // Stops with no grace and joins if the owner did not.
  ~FetchWorker();
  FetchWorker(const FetchWorker&) = delete;
  FetchWorker& operator=(const FetchWorker&) = delete;

  // Thread-safe, never blocks on the network. False once Stop was called:
  // the request was not taken and will get no callback.
  bool Enqueue(FetchRequest request);
  // Queued plus running requests; for choosing a worker.
  size_t Load() const { return load_.load(std::memory_order_relaxed); }
  size_t slots() const { return slots_; }

  void Stop(Clock::time_point deadline);
  void Join();

 private:
  struct StopState {
    bool stopping = false;
    Clock::time_point deadline;
  };

  FetchWorker(const TransferContext& context, const Fetcher::Callback* callback,
              FetchCounters* counters, int slots);
  void Run();
  StopState Intake();
  void Start(FetchRequest request);
  void CollectFinished();
  void AbandonRunning();
  void Release(Transfer* transfer);
  void Deliver(FetchResult&& result);
  int PollTimeoutMs(const StopState& stop) const;
  void WaitForActivity(const StopState& stop);
  absl::Status WatchSockets();
  void WakeUp();
  static int OnSocket(CURL* easy, curl_socket_t socket, int what, void* self, void* socket_data);
  void Watch(curl_socket_t socket, uint32_t events);  // curl wants `events` on `socket`
  void Park(curl_socket_t socket);                    // curl no longer watches `socket`
  // An event on a socket curl no longer watches: true when it was one (then
  // unregistered, so a closing idle connection does not wake the loop again).
  bool DropIfParked(int socket);
  static int OnTimer(CURLM* multi, long timeout_ms, void* self);
  int TimerMs() const;  // until curl's timer is due, at most kMaxPollMs
  void RunDueTimer();

  const TransferContext context_;
  const Fetcher::Callback* const callback_;
  FetchCounters* const counters_;
  const size_t slots_;
  CURLM* multi_ = nullptr;
  int epoll_fd_ = -1;  // the sockets curl watches, and wake_fd_
  int wake_fd_ = -1;   // eventfd: Enqueue and Stop wake the thread
  std::atomic<size_t> load_{0};
  // True while the thread may be asleep in curl_multi_poll (WaitForActivity).
  std::atomic<bool> polling_{false};

  std::mutex mu_;
  std::deque<FetchRequest> queue_ ABSL_GUARDED_BY(mu_);
  StopState stop_ ABSL_GUARDED_BY(mu_);

  // Touched only by the worker thread.
  std::vector<std::unique_ptr<Transfer>> pool_;  // every Transfer ever made
  std::vector<Transfer*> idle_;
  // At most slots_ each (a few dozen): a vector searched linearly costs no
  // allocation a request, as a hash set's node did.
  std::vector<Transfer*> running_;
  std::vector<FetchRequest> taken_;  // Intake's, kept for its capacity
  bool timer_set_ = false;           // curl's timer (OnTimer), run by RunDueTimer
  // What epoll holds for each socket curl has handed us, by descriptor:
  // kNotRegistered, or the events registered, with kParked once curl said
  // CURL_POLL_REMOVE. A transfer's end removes its socket and the next one on
  // the same connection adds it back; parking keeps the registration, so
  // the pair costs at most one epoll_ctl instead of three (DEL, MOD failing
  // with ENOENT, ADD). Bound: 4 bytes a descriptor up to the highest socket
  // curl has used (its connections are capped by CURLMOPT_MAXCONNECTS).
  std::vector<uint32_t> registered_;
  Clock::time_point timer_due_;

  std::thread thread_;  // last: starts after everything above exists
};

}  // namespace crawler::fetch_internal

#endif  // CRAWLER_SRC_FETCH_FETCH_WORKER_H_
