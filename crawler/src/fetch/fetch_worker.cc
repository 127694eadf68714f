#include "fetch/fetch_worker.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <exception>
#include <utility>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace crawler::fetch_internal {
namespace {

// Longest sleep in epoll_wait when curl has no earlier timer: Enqueue and
// Stop wake the thread anyway; this only bounds the damage of a lost wakeup.
constexpr int kMaxPollMs = 1000;

// FetchWorker::registered_'s values besides the epoll event bits.
constexpr uint32_t kNotRegistered = 0;
constexpr uint32_t kParked = 1u << 31;  // not an epoll event bit (EPOLLET is)

FetchResult AbortedBeforeStart(FetchRequest request) {
  FetchResult result;
  result.tag = request.tag;
  result.final_url = request.url;
  result.url = std::move(request.url);
  result.started_at = std::chrono::system_clock::now();
  result.error = std::string(kFetchAborted);
  return result;
}

FetchResult FailedToStart(FetchRequest request, absl::string_view why) {
  FetchResult result = AbortedBeforeStart(std::move(request));
  result.error = absl::StrCat("other: ", why);
  return result;
}

}  // namespace

absl::StatusOr<std::unique_ptr<FetchWorker>> FetchWorker::Create(const TransferContext& context,
                                                                 const Fetcher::Callback* callback,
                                                                 FetchCounters* counters,
                                                                 int slots) {
  std::unique_ptr<FetchWorker> worker(new FetchWorker(context, callback, counters, slots));
  worker->multi_ = curl_multi_init();
  if (worker->multi_ == nullptr) return absl::InternalError("curl_multi_init failed");
  // curl's default cache holds 4 connections per easy handle in the multi
  // handle at the moment a transfer ends. Ours are removed as they finish,
  // so whenever few transfers run (the parse backlog full, the queue briefly
  // dry) the cache shrinks to a few and closes the rest: ~700 connections
  // for 22k pages from one host, against wget2's 32. Fixed at what the
  // default allows with every slot busy: a crawl of many hosts keeps idle
  // connections to several of them.
  if (curl_multi_setopt(worker->multi_, CURLMOPT_MAXCONNECTS, 4L * slots) != CURLM_OK) {
    return absl::InternalError("curl_multi_setopt(CURLMOPT_MAXCONNECTS) failed");
  }
  if (absl::Status events = worker->WatchSockets(); !events.ok()) return events;
  worker->pool_.reserve(worker->slots_);
  worker->running_.reserve(worker->slots_);
  worker->thread_ = std::thread([w = worker.get()] { w->Run(); });
  return worker;
}

FetchWorker::FetchWorker(const TransferContext& context, const Fetcher::Callback* callback,
                         FetchCounters* counters, int slots)
    : context_(context), callback_(callback), counters_(counters), slots_(slots) {}

FetchWorker::~FetchWorker() {
  Stop(Clock::now());
  Join();
  // Every easy handle is out of the multi handle by now (the thread removed
  // them), so the order of these cleanups does not matter to curl.
  pool_.clear();
  if (multi_ != nullptr) curl_multi_cleanup(multi_);
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

bool FetchWorker::Enqueue(FetchRequest request) {
  {
    std::lock_guard lock(mu_);
    if (stop_.stopping) return false;
    queue_.push_back(std::move(request));
    load_.fetch_add(1, std::memory_order_relaxed);
    counters_->queued.fetch_add(1, std::memory_order_relaxed);
  }
  // Only a thread that is (or is about to be) asleep in epoll_wait needs
  // waking; see WaitForActivity for why this cannot miss one.
  if (polling_.exchange(false)) WakeUp();
  return true;
}

void FetchWorker::Stop(Clock::time_point deadline) {
  {
    std::lock_guard lock(mu_);
    if (stop_.stopping) return;
    stop_ = {.stopping = true, .deadline = deadline};
  }
  WakeUp();
}

void FetchWorker::Join() {
  if (thread_.joinable()) thread_.join();
}

void FetchWorker::Run() {
  for (;;) {
    RunDueTimer();
    CollectFinished();
    const StopState stop = Intake();
    if (stop.stopping) {
      if (running_.empty()) return;
      if (Clock::now() >= stop.deadline) {
        AbandonRunning();
        return;
      }
    }
    WaitForActivity(stop);
  }
}

// Sleeps in epoll_wait until a socket curl watches is ready, curl's timer is
// due (a transfer just added is due at once) or Enqueue or Stop writes the
// eventfd, then hands each ready socket to curl. A wake-up is a write, a
// read and a context switch, so Enqueue wakes only a thread that has raised
// `polling_`: one wake-up per sleep, not one per request. The flag is raised
// before the queue is looked at, and Enqueue looks at the flag after
// queueing (the mutex and the sequentially consistent flag order the two),
// so a request queued in between is seen by this check or wakes the wait.
void FetchWorker::WaitForActivity(const StopState& stop) {
  polling_.store(true);
  if (!stop.stopping && running_.size() < slots_) {
    std::lock_guard lock(mu_);
    if (!queue_.empty()) {
      polling_.store(false);
      return;  // more to start: no sleep
    }
  }
  epoll_event events[64];
  const int ready = ::epoll_wait(epoll_fd_, events, 64, std::min(PollTimeoutMs(stop), TimerMs()));
  polling_.store(false);
  for (int i = 0; i < ready; ++i) {
    if (events[i].data.fd == wake_fd_) {
      uint64_t count = 0;
      [[maybe_unused]] const ssize_t drained = ::read(wake_fd_, &count, sizeof(count));
      continue;
    }
    if (DropIfParked(events[i].data.fd)) continue;
    const uint32_t e = events[i].events;
    const int bits = ((e & (EPOLLIN | EPOLLHUP | EPOLLERR)) != 0 ? CURL_CSELECT_IN : 0) |
                     ((e & EPOLLOUT) != 0 ? CURL_CSELECT_OUT : 0) |
                     ((e & EPOLLERR) != 0 ? CURL_CSELECT_ERR : 0);
    int running = 0;
    curl_multi_socket_action(multi_, events[i].data.fd, bits, &running);
  }
}

// curl is driven by socket readiness (curl_multi_socket_action): with
// curl_multi_perform, libcurl 7.88 checks every running transfer's socket
// with a poll() of its own on each turn, 5-14 polls per page of the 20k
// synthetic site, where wget2 makes one. epoll says which sockets are ready,
// curl's socket callback keeps the epoll set, its timer callback the next
// timeout, and an eventfd in the set is Enqueue's and Stop's wake-up.
absl::Status FetchWorker::WatchSockets() {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epoll_fd_ < 0 || wake_fd_ < 0) return absl::InternalError("epoll_create1 or eventfd failed");
  epoll_event wake{};
  wake.events = EPOLLIN;
  wake.data.fd = wake_fd_;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &wake) != 0) {
    return absl::InternalError("epoll_ctl(eventfd) failed");
  }
  CURLMcode code = curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &FetchWorker::OnSocket);
  if (code == CURLM_OK) code = curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  if (code == CURLM_OK)
    code = curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &FetchWorker::OnTimer);
  if (code == CURLM_OK) code = curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
  if (code != CURLM_OK) return absl::InternalError("curl_multi_setopt(socket callbacks) failed");
  return absl::OkStatus();
}

void FetchWorker::WakeUp() {
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(wake_fd_, &one, sizeof(one));
}

int FetchWorker::OnSocket(CURL*, curl_socket_t socket, int what, void* self, void*) {
  auto* w = static_cast<FetchWorker*>(self);
  if (socket < 0) return 0;
  if (static_cast<size_t>(socket) >= w->registered_.size()) {
    w->registered_.resize(static_cast<size_t>(socket) + 1, kNotRegistered);
  }
  if (what == CURL_POLL_REMOVE) {
    w->Park(socket);
  } else {
    w->Watch(socket, ((what & CURL_POLL_IN) != 0 ? EPOLLIN : 0u) |
                         ((what & CURL_POLL_OUT) != 0 ? EPOLLOUT : 0u));
  }
  return 0;
}

// Registered, the descriptor may since have been closed (which drops it
// from the epoll set) and reused for a new connection: MOD then fails with
// ENOENT and the socket is added.
void FetchWorker::Watch(curl_socket_t socket, uint32_t events) {
  uint32_t& state = registered_[static_cast<size_t>(socket)];
  epoll_event event{};
  event.events = events;
  event.data.fd = socket;
  if (state == kNotRegistered ||
      (::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, socket, &event) != 0 && errno == ENOENT)) {
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, socket, &event);
  }
  state = events;
}

// Kept in the epoll set: an idle connection in curl's cache is silent until
// reused (then Watch) or closed by the server (then DropIfParked).
void FetchWorker::Park(curl_socket_t socket) {
  uint32_t& state = registered_[static_cast<size_t>(socket)];
  if (state != kNotRegistered) state |= kParked;
}

bool FetchWorker::DropIfParked(int socket) {
  if (socket < 0 || static_cast<size_t>(socket) >= registered_.size()) return false;
  uint32_t& state = registered_[static_cast<size_t>(socket)];
  if ((state & kParked) == 0) return false;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, socket, nullptr);
  state = kNotRegistered;
  return true;
}

int FetchWorker::OnTimer(CURLM*, long timeout_ms, void* self) {
  auto* w = static_cast<FetchWorker*>(self);
  w->timer_set_ = timeout_ms >= 0;
  w->timer_due_ = Clock::now() + std::chrono::milliseconds(std::max(0L, timeout_ms));
  return 0;
}

int FetchWorker::TimerMs() const {
  if (!timer_set_) return kMaxPollMs;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(timer_due_ - Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, kMaxPollMs));
}

void FetchWorker::RunDueTimer() {
  if (!timer_set_ || Clock::now() < timer_due_) return;
  timer_set_ = false;  // curl sets it again from inside if it wants
  int running = 0;
  curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
}

int FetchWorker::PollTimeoutMs(const StopState& stop) const {
  if (!stop.stopping) return kMaxPollMs;
  const auto left =
      std::chrono::ceil<std::chrono::milliseconds>(stop.deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, kMaxPollMs));
}

// Moves queued requests into free slots; once stopping, aborts them instead.
FetchWorker::StopState FetchWorker::Intake() {
  taken_.clear();
  StopState stop;
  {
    std::lock_guard lock(mu_);
    stop = stop_;
    const size_t free_slots = slots_ - std::min(slots_, running_.size());
    const size_t count = stop.stopping ? queue_.size() : std::min(free_slots, queue_.size());
    for (size_t i = 0; i < count; ++i) {
      taken_.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
  }
  counters_->queued.fetch_sub(taken_.size(), std::memory_order_relaxed);
  for (FetchRequest& request : taken_) {
    if (stop.stopping) {
      Deliver(AbortedBeforeStart(std::move(request)));
    } else {
      Start(std::move(request));
    }
  }
  taken_.clear();  // the moved-from requests
  return stop;
}

void FetchWorker::Start(FetchRequest request) {
  if (idle_.empty()) {
    absl::StatusOr<std::unique_ptr<Transfer>> created = Transfer::Create(context_);
    if (!created.ok()) {
      return Deliver(FailedToStart(std::move(request), created.status().message()));
    }
    idle_.push_back(created->get());
    pool_.push_back(*std::move(created));
  }
  Transfer* transfer = idle_.back();
  idle_.pop_back();
  if (!transfer->Prepare(std::move(request))) {
    FetchResult result = transfer->Finish(CURLE_OK);
    Release(transfer);
    return Deliver(std::move(result));
  }
  const CURLMcode added = curl_multi_add_handle(multi_, transfer->easy());
  if (added != CURLM_OK) {
    FetchResult result = transfer->FinishUnstarted(CURLE_FAILED_INIT);
    Release(transfer);
    return Deliver(std::move(result));
  }
  running_.push_back(transfer);
}

void FetchWorker::CollectFinished() {
  int left = 0;
  while (CURLMsg* message = curl_multi_info_read(multi_, &left)) {
    if (message->msg != CURLMSG_DONE) continue;
    // Copy out before remove_handle: it invalidates `message`.
    CURL* easy = message->easy_handle;
    const CURLcode code = message->data.result;
    curl_multi_remove_handle(multi_, easy);
    Transfer* transfer = Transfer::FromEasy(easy);
    std::erase(running_, transfer);
    FetchResult result = transfer->Finish(code);
    Release(transfer);
    Deliver(std::move(result));
  }
}

void FetchWorker::AbandonRunning() {
  for (Transfer* transfer : running_) {
    curl_multi_remove_handle(multi_, transfer->easy());
    FetchResult result = transfer->Abandon();
    Release(transfer);
    Deliver(std::move(result));
  }
  running_.clear();
}

void FetchWorker::Release(Transfer* transfer) { idle_.push_back(transfer); }

void FetchWorker::Deliver(FetchResult&& result) {
  const bool failed = !result.error.empty();
  const uint64_t body = result.body.size();
  const uint64_t wire = result.wire_bytes;
  try {
    (*callback_)(std::move(result));
  } catch (const std::exception& e) {
    // The callback is the caller's code; an exception must not kill a fetcher thread.
    spdlog::error("fetch callback threw: {}", e.what());
  } catch (...) {
    spdlog::error("fetch callback threw a non-std exception");
  }
  load_.fetch_sub(1, std::memory_order_relaxed);
  counters_->RecordCompleted(failed, body, wire);
}

}  // namespace crawler::fetch_internal
