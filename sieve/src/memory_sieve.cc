// The in-memory Sieve (sieve/memory_sieve.h): push, pop, done, defer, stats.

#include "sieve/memory_sieve.h"

#include <algorithm>
#include <utility>

#include "bloom/hash.h"
#include "sieve_state.h"
#include "spdlog/spdlog.h"
#include "validate_options.h"

namespace sieve {

MemorySieve::State::State(internal::SeenFilter filter_in, internal::SpillQueueOptions queue_options,
                          const SieveCounters& counters)
    : filter(std::move(filter_in)),
      warner(filter.Capacity(), counters.overflow_warnings),
      accepted(counters.accepted),
      dropped(counters.dropped),
      queue(std::move(queue_options)),
      popped(counters.popped),
      done(counters.done),
      lost(counters.lost) {}

absl::StatusOr<std::unique_ptr<MemorySieve>> MemorySieve::Create(const SieveOptions& options) {
  absl::StatusOr<SieveOptions> resolved = internal::ValidateOptions(options);
  if (!resolved.ok()) return resolved.status();
  absl::StatusOr<internal::SeenFilter> filter = internal::SeenFilter::Create(*resolved);
  if (!filter.ok()) return filter.status();
  spdlog::debug("sieve: filter for {} URLs at p = {} ({} policy) uses {} bytes",
                resolved->expected_count, resolved->fp_rate,
                OverflowPolicyName(resolved->overflow_policy), filter->MemoryBytes());
  auto state = std::make_unique<State>(
      *std::move(filter),
      internal::SpillQueueOptions{resolved->queue_memory_budget_bytes, resolved->spill_dir},
      SieveCounters{});
  return std::unique_ptr<MemorySieve>(new MemorySieve(std::move(state)));
}

MemorySieve::MemorySieve(std::unique_ptr<State> state) : state_(std::move(state)) {}
MemorySieve::~MemorySieve() = default;

namespace {

// The check-and-insert and the enqueue, under the URL's stripe (see
// sieve_state.h for why the enqueue must be inside it too).
bool InsertAndEnqueue(MemorySieve::State& s, std::string_view url) {
  const bloom::Hash128 hash = bloom::HashKey(url);
  std::lock_guard<std::mutex> stripe(s.stripes[hash.low % kStripeCount]);
  if (!s.filter.InsertIfNew(hash)) {
    s.dropped.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.queue.Push(url);
  }
  const uint64_t accepted = s.accepted.fetch_add(1, std::memory_order_relaxed) + 1;
  if (s.filter.policy() == OverflowPolicy::kWarn && s.warner.Due(accepted)) {
    s.warner.Check(accepted, s.filter);
  }
  return true;
}

}  // namespace

bool MemorySieve::Push(std::string_view url) {
  if (state_->closed.load(std::memory_order_acquire)) return false;
  if (!InsertAndEnqueue(*state_, url)) return false;
  state_->changed.notify_one();
  return true;
}

namespace {

// A batch of up to kBatchChunk URLs under every stripe at once: the filter
// gets the whole chunk (its batch form prefetches the keys' cache lines, so
// their misses overlap) and the queue mutex is taken once. Every stripe is
// held for the chunk, which keeps exactly-once (and Save's snapshot) intact;
// the chunk is small so single pushes wait at most a few microseconds.
constexpr size_t kBatchChunk = 512;

size_t InsertAndEnqueueChunk(MemorySieve::State& s, absl::Span<const std::string_view> urls,
                             absl::Span<bool> is_new) {
  size_t count = 0;
  AllStripesLock stripes(s.stripes);
  s.filter.InsertIfNewBatch(urls, is_new);
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    for (size_t i = 0; i < urls.size(); ++i) {
      if (is_new[i]) s.queue.Push(urls[i]);
      count += is_new[i];
    }
  }
  s.dropped.fetch_add(urls.size() - count, std::memory_order_relaxed);
  s.accepted.fetch_add(count, std::memory_order_relaxed);
  return count;
}

}  // namespace

size_t MemorySieve::PushBatch(absl::Span<const std::string_view> urls, absl::Span<bool> accepted) {
  State& s = *state_;
  if (s.closed.load(std::memory_order_acquire)) {
    for (bool& a : accepted) a = false;
    return 0;
  }
  bool chunk_results[kBatchChunk];
  size_t count = 0;
  for (size_t start = 0; start < urls.size(); start += kBatchChunk) {
    const size_t size = std::min(kBatchChunk, urls.size() - start);
    absl::Span<bool> is_new(chunk_results, size);
    count += InsertAndEnqueueChunk(s, urls.subspan(start, size), is_new);
    if (!accepted.empty()) std::copy(is_new.begin(), is_new.end(), accepted.begin() + start);
  }
  const uint64_t total = s.accepted.load(std::memory_order_relaxed);
  if (s.filter.policy() == OverflowPolicy::kWarn && s.warner.Due(total)) {
    s.warner.Check(total, s.filter);
  }
  if (count > 0) s.changed.notify_all();
  return count;
}

namespace {

// Pops under s.mutex. Skips (and counts as lost) segments whose spill file
// cannot be read back; nullopt only if the queue ran empty that way.
std::optional<std::string> PopLocked(MemorySieve::State& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  while (s.queue.Size() > 0) {
    const size_t before = s.queue.Size();
    absl::StatusOr<std::optional<std::string>> url = s.queue.Pop();
    if (!url.ok()) {
      s.lost += before - s.queue.Size();
      spdlog::error("sieve: lost {} queued URLs: {}", before - s.queue.Size(),
                    url.status().ToString());
      continue;
    }
    s.in_flight.insert_or_assign(**url, s.popped++);
    return *std::move(*url);
  }
  s.changed.notify_all();  // maybe finished now
  return std::nullopt;
}

// True when a Pop can stop waiting: something to pop, or nothing will come.
bool PopReady(const MemorySieve::State& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  return s.closed.load(std::memory_order_relaxed) || s.queue.Size() > 0 || s.in_flight.empty();
}

}  // namespace

std::optional<std::string> MemorySieve::Pop() {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mutex);
  for (;;) {
    s.changed.wait(lock, [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return PopReady(s); });
    if (s.closed.load(std::memory_order_relaxed) || s.queue.Size() == 0) return std::nullopt;
    if (std::optional<std::string> url = PopLocked(s)) return url;
  }
}

std::optional<std::string> MemorySieve::TryPop() {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.closed.load(std::memory_order_relaxed)) return std::nullopt;
  return PopLocked(s);
}

std::optional<std::string> MemorySieve::PopFor(std::chrono::milliseconds timeout) {
  State& s = *state_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock<std::mutex> lock(s.mutex);
  for (;;) {
    if (!s.changed.wait_until(lock, deadline,
                              [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return PopReady(s); })) {
      return std::nullopt;
    }
    if (s.closed.load(std::memory_order_relaxed) || s.queue.Size() == 0) return std::nullopt;
    if (std::optional<std::string> url = PopLocked(s)) return url;
  }
}

bool MemorySieve::MarkDone(std::string_view url) {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.in_flight.find(std::string(url));
  if (it == s.in_flight.end()) return false;
  s.in_flight.erase(it);
  ++s.done;
  if (s.in_flight.empty() && s.queue.Size() == 0) s.changed.notify_all();
  return true;
}

bool MemorySieve::Defer(std::string_view url) {
  State& s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.in_flight.find(std::string(url));
    if (it == s.in_flight.end()) return false;
    s.in_flight.erase(it);
    s.queue.Push(url);
    ++s.deferred;
  }
  s.changed.notify_all();
  return true;
}

void MemorySieve::Close() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->closed.store(true, std::memory_order_release);
  }
  state_->changed.notify_all();
}

bool MemorySieve::IsFinished() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->closed.load(std::memory_order_relaxed) ||
         (state_->queue.Size() == 0 && state_->in_flight.empty());
}

SieveStats MemorySieve::Stats() const {
  const State& s = *state_;
  SieveStats stats;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    stats.queued = s.queue.Size();
    stats.in_flight = s.in_flight.size();
    stats.popped = s.popped;
    stats.done = s.done;
    stats.lost = s.lost;
    stats.deferred = s.deferred;
    stats.closed = s.closed.load(std::memory_order_relaxed);
    stats.queue_memory_bytes = s.queue.MemoryBytes();
    stats.queue_disk_bytes = s.queue.DiskBytes();
    stats.spilled_segments = s.queue.SpilledSegments();
  }
  stats.accepted = s.accepted.load(std::memory_order_relaxed);
  stats.dropped = s.dropped.load(std::memory_order_relaxed);
  stats.estimated_count = s.filter.EstimatedCount();
  stats.capacity = s.filter.Capacity();
  stats.target_fp_rate = s.filter.TargetFpRate();
  stats.current_fp_rate = s.filter.CurrentFpRate();
  stats.fill_ratio = s.filter.FillRatio();
  stats.overflow_warnings = s.warner.warnings();
  stats.filter_bytes = s.filter.MemoryBytes();
  return stats;
}

}  // namespace sieve
