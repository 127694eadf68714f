// The in-memory Sieve (sieve/memory_sieve.h): push, pop, done, defer, stats.

#include "sieve/memory_sieve.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "bloom/hash.h"
#include "log_emit.h"
#include "sieve_state.h"
#include "validate_options.h"

namespace sieve {

MemorySieve::State::State(internal::SeenFilter filter_in, internal::SpillQueueOptions queue_options,
                          const SieveCounters& counters,
                          const internal::FpSample::Options& sample_options)
    : filter(std::move(filter_in)),
      log(queue_options.log),
      sample(sample_options),
      warner(filter.InitialCapacity(), counters.overflow_warnings),
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
  internal::Emit(
      resolved->log_sink, LogLevel::kDebug,
      absl::StrFormat("sieve: filter for expected_count %d at fp_rate %g (%s overflow "
                      "policy) uses %d bytes",
                      resolved->expected_count, resolved->fp_rate,
                      OverflowPolicyName(resolved->overflow_policy), filter->MemoryBytes()));
  auto state = std::make_unique<State>(
      *std::move(filter),
      internal::SpillQueueOptions{resolved->queue_memory_budget_bytes, resolved->spill_dir,
                                  resolved->log_sink, resolved->lane_order},
      SieveCounters{}, internal::SampleOptionsOf(*resolved));
  return std::unique_ptr<MemorySieve>(new MemorySieve(std::move(state)));
}

MemorySieve::MemorySieve(std::unique_ptr<State> state) : state_(std::move(state)) {}
MemorySieve::~MemorySieve() = default;

namespace {

// Under s.mutex, after the queue changed.
void NoteLanes(MemorySieve::State& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  s.lanes.store(s.queue.LaneCount(), std::memory_order_relaxed);
}

// The lane bound (kMaxLanes), checked before the filter sees the URL: a URL
// the filter took must be queued. Far from the bound no lock is taken.
bool LaneAvailable(MemorySieve::State& s, int32_t priority) {
  if (s.lanes.load(std::memory_order_relaxed) < kMaxLanes) return true;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.queue.HasLane(priority) || s.queue.LaneCount() < kMaxLanes) return true;
  }
  s.refused.fetch_add(1, std::memory_order_relaxed);
  if (!s.warned_lanes.exchange(true)) {
    internal::Emit(s.log, LogLevel::kError,
                   absl::StrFormat("sieve: a push at priority %d is refused: %d priorities "
                                   "already have URLs queued (the most a Sieve keeps at once; "
                                   "use fewer distinct priorities)",
                                   priority, kMaxLanes));
  }
  return false;
}

// The insert and, if the URL was new, the enqueue; the caller holds the URL's
// stripe (see sieve_state.h for why the enqueue must be inside it too).
bool InsertAndEnqueueLocked(MemorySieve::State& s, const bloom::Hash128& hash, std::string_view url,
                            std::string_view payload, int32_t priority) {
  const bool is_new = s.filter.InsertIfNew(hash);
  s.sample.Observe(hash, is_new);
  if (!is_new) {
    s.dropped.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.queue.Push(priority, url, payload);
    NoteLanes(s);
  }
  const uint64_t accepted = s.accepted.fetch_add(1, std::memory_order_relaxed) + 1;
  if (s.warner.Due(accepted)) {
    s.warner.Check(accepted, s.filter, s.log);
  }
  return true;
}

bool InsertAndEnqueue(MemorySieve::State& s, std::string_view url, std::string_view payload,
                      int32_t priority) {
  const bloom::Hash128 hash = bloom::HashKey(url);
  std::lock_guard<std::mutex> stripe(s.stripes[hash.low % kStripeCount]);
  return InsertAndEnqueueLocked(s, hash, url, payload, priority);
}

// A URL the filter already holds is dropped before its payload is made. Under
// the stripe, no other push of this URL can come between the look and the
// insert; another URL's bits may (a false positive born in between), and the
// insert then drops it as Push would have.
bool InsertAndEnqueueLazy(MemorySieve::State& s, std::string_view url,
                          absl::FunctionRef<std::optional<std::string>()> make_payload,
                          int32_t priority) {
  const bloom::Hash128 hash = bloom::HashKey(url);
  std::lock_guard<std::mutex> stripe(s.stripes[hash.low % kStripeCount]);
  if (s.filter.MayContain(hash)) {
    s.sample.Observe(hash, false);
    s.dropped.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  const std::optional<std::string> payload = make_payload();
  if (!payload.has_value()) return false;
  if (payload->size() > kMaxPayloadBytes) {
    s.refused.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  return InsertAndEnqueueLocked(s, hash, url, *payload, priority);
}

}  // namespace

bool MemorySieve::Push(std::string_view url, std::string_view payload, int32_t priority) {
  if (state_->closed.load(std::memory_order_acquire)) return false;
  if (payload.size() > kMaxPayloadBytes) {
    state_->refused.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  if (!LaneAvailable(*state_, priority)) return false;
  if (!InsertAndEnqueue(*state_, url, payload, priority)) return false;
  state_->changed.notify_one();
  return true;
}

bool MemorySieve::PushLazy(std::string_view url,
                           absl::FunctionRef<std::optional<std::string>()> make_payload,
                           int32_t priority) {
  if (state_->closed.load(std::memory_order_acquire)) return false;
  if (!LaneAvailable(*state_, priority)) return false;
  if (!InsertAndEnqueueLazy(*state_, url, make_payload, priority)) return false;
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

// `payloads` and `priorities` are empty or parallel to `urls`; no payload is
// over kMaxPayloadBytes and no priority would pass the lane bound (PushBatch
// checked).
size_t InsertAndEnqueueChunk(MemorySieve::State& s, absl::Span<const std::string_view> urls,
                             absl::Span<const std::string_view> payloads,
                             absl::Span<const int32_t> priorities, absl::Span<bool> is_new) {
  size_t count = 0;
  bloom::Hash128 hash_array[kBatchChunk];
  const absl::Span<bloom::Hash128> hashes(hash_array, urls.size());
  for (size_t i = 0; i < urls.size(); ++i) hashes[i] = bloom::HashKey(urls[i]);
  AllStripesLock stripes(s.stripes);
  s.filter.InsertIfNewBatch(hashes, is_new);
  s.sample.ObserveBatch(hashes, is_new);
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    for (size_t i = 0; i < urls.size(); ++i) {
      if (is_new[i]) {
        s.queue.Push(priorities.empty() ? 0 : priorities[i], urls[i],
                     payloads.empty() ? std::string_view() : payloads[i]);
      }
      count += is_new[i];
    }
    NoteLanes(s);
  }
  s.dropped.fetch_add(urls.size() - count, std::memory_order_relaxed);
  s.accepted.fetch_add(count, std::memory_order_relaxed);
  return count;
}

// A batch with a payload over kMaxPayloadBytes, or near the lane bound, goes
// through single pushes, which refuse those: the rare case, kept out of the
// batch's loop.
size_t PushEachOf(MemorySieve& sieve, absl::Span<const std::string_view> urls,
                  absl::Span<const std::string_view> payloads, absl::Span<const int32_t> priorities,
                  absl::Span<bool> accepted) {
  size_t count = 0;
  for (size_t i = 0; i < urls.size(); ++i) {
    const bool is_new = sieve.Push(urls[i], payloads.empty() ? std::string_view() : payloads[i],
                                   priorities.empty() ? 0 : priorities[i]);
    if (!accepted.empty()) accepted[i] = is_new;
    count += is_new;
  }
  return count;
}

bool AnyOversized(absl::Span<const std::string_view> payloads) {
  return std::any_of(payloads.begin(), payloads.end(),
                     [](std::string_view p) { return p.size() > kMaxPayloadBytes; });
}

// True if the batch's priorities might open lanes past kMaxLanes: more of its
// distinct priorities have no lane yet than there is room for. Looked at only
// when the batch is longer than the room left (far from the bound, never);
// then each distinct priority is looked up once, under the queue mutex. A
// batch whose priorities all have lanes takes the batch path even with every
// lane in use (it used to fall back to single pushes there, which made a
// Sieve with 1,024 live priorities push ~3x slower than one without).
bool MayPassLaneBound(MemorySieve::State& s, absl::Span<const int32_t> priorities) {
  const size_t room = kMaxLanes - std::min(kMaxLanes, s.lanes.load(std::memory_order_relaxed));
  if (priorities.size() <= room) return false;
  absl::flat_hash_set<int32_t> distinct(priorities.begin(), priorities.end());
  if (distinct.size() <= room) return false;
  size_t without_lane = 0;
  std::lock_guard<std::mutex> lock(s.mutex);
  for (const int32_t priority : distinct) {
    if (!s.queue.HasLane(priority) && ++without_lane > room) return true;
  }
  return false;
}

}  // namespace

size_t MemorySieve::PushBatch(absl::Span<const std::string_view> urls,
                              absl::Span<const std::string_view> payloads,
                              absl::Span<const int32_t> priorities, absl::Span<bool> accepted) {
  State& s = *state_;
  assert(payloads.empty() || payloads.size() == urls.size());
  assert(priorities.empty() || priorities.size() == urls.size());
  if (s.closed.load(std::memory_order_acquire)) {
    for (bool& a : accepted) a = false;
    return 0;
  }
  if (AnyOversized(payloads) || MayPassLaneBound(s, priorities)) {
    return PushEachOf(*this, urls, payloads, priorities, accepted);
  }
  bool chunk_results[kBatchChunk];
  size_t count = 0;
  for (size_t start = 0; start < urls.size(); start += kBatchChunk) {
    const size_t size = std::min(kBatchChunk, urls.size() - start);
    absl::Span<bool> is_new(chunk_results, size);
    count += InsertAndEnqueueChunk(
        s, urls.subspan(start, size), payloads.empty() ? payloads : payloads.subspan(start, size),
        priorities.empty() ? priorities : priorities.subspan(start, size), is_new);
    if (!accepted.empty()) std::copy(is_new.begin(), is_new.end(), accepted.begin() + start);
  }
  const uint64_t total = s.accepted.load(std::memory_order_relaxed);
  if (s.warner.Due(total)) {
    s.warner.Check(total, s.filter, s.log);
  }
  if (count > 0) s.changed.notify_all();
  return count;
}

namespace {

// Pops under s.mutex. Skips (and counts as lost) segments whose spill file
// cannot be read back; nullopt only if the queue ran empty that way.
std::optional<SieveEntry> PopLocked(MemorySieve::State& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  while (s.queue.Size() > 0) {
    const size_t before = s.queue.Size();
    absl::StatusOr<std::optional<SieveEntry>> entry = s.queue.Pop();
    if (!entry.ok()) {
      s.lost += before - s.queue.Size();
      NoteLanes(s);
      internal::Emit(s.log, LogLevel::kError,
                     absl::StrFormat("sieve: lost %d queued URLs (a spilled segment could not be "
                                     "read back): %s",
                                     before - s.queue.Size(), entry.status().ToString()));
      continue;
    }
    NoteLanes(s);
    s.in_flight.insert_or_assign(
        (*entry)->url,
        MemorySieve::State::InFlight{s.popped++, (*entry)->payload, (*entry)->priority});
    return *std::move(*entry);
  }
  s.changed.notify_all();  // maybe finished now
  return std::nullopt;
}

// True when nothing more can come: closed, or an empty queue with no URL in
// flight (whose page may yield links) and no producer still open.
bool NothingMore(const MemorySieve::State& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  return s.closed.load(std::memory_order_relaxed) ||
         (s.queue.Size() == 0 && s.in_flight.empty() && s.producers == 0);
}

// True when a Pop can stop waiting: something to pop, or nothing will come.
bool PopReady(const MemorySieve::State& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  return s.queue.Size() > 0 || NothingMore(s);
}

}  // namespace

std::optional<SieveEntry> MemorySieve::PopEntry() {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mutex);
  for (;;) {
    s.changed.wait(lock, [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return PopReady(s); });
    if (s.closed.load(std::memory_order_relaxed) || s.queue.Size() == 0) return std::nullopt;
    if (std::optional<SieveEntry> entry = PopLocked(s)) return entry;
  }
}

std::optional<SieveEntry> MemorySieve::TryPopEntry() {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.closed.load(std::memory_order_relaxed)) return std::nullopt;
  return PopLocked(s);
}

std::optional<SieveEntry> MemorySieve::PopEntryFor(std::chrono::milliseconds timeout) {
  State& s = *state_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock<std::mutex> lock(s.mutex);
  for (;;) {
    if (!s.changed.wait_until(lock, deadline,
                              [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return PopReady(s); })) {
      return std::nullopt;
    }
    if (s.closed.load(std::memory_order_relaxed) || s.queue.Size() == 0) return std::nullopt;
    if (std::optional<SieveEntry> entry = PopLocked(s)) return entry;
  }
}

bool MemorySieve::AcceptsPriority(int32_t priority) const {
  const State& s = *state_;
  if (s.lanes.load(std::memory_order_relaxed) < kMaxLanes) return true;
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.queue.HasLane(priority) || s.queue.LaneCount() < kMaxLanes;
}

bool MemorySieve::MarkDone(std::string_view url) {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.in_flight.find(absl::string_view(url.data(), url.size()));
  if (it == s.in_flight.end()) return false;
  s.in_flight.erase(it);
  ++s.done;
  if (NothingMore(s)) s.changed.notify_all();
  return true;
}

bool MemorySieve::Defer(std::string_view url) {
  State& s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.in_flight.find(absl::string_view(url.data(), url.size()));
    if (it == s.in_flight.end()) return false;
    s.queue.PushUnder(it->second.priority, url, it->second.payload);
    NoteLanes(s);
    s.in_flight.erase(it);
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
  return NothingMore(*state_);
}

void MemorySieve::AddProducer() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  ++state_->producers;
}

void MemorySieve::ProducerDone() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    assert(state_->producers > 0 && "ProducerDone without AddProducer");
    if (state_->producers > 0) --state_->producers;
  }
  state_->changed.notify_all();  // the last producer: waiting Pops may end
}

SieveStats MemorySieve::Stats() const {
  const State& s = *state_;
  SieveStats stats;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    // The segments with the spill writer first (a few at most), so that the
    // disk and spill figures are the queue's, not the writer's progress.
    s.queue.WaitForWrites();
    stats.queued = s.queue.Size();
    stats.in_flight = s.in_flight.size();
    stats.popped = s.popped;
    stats.done = s.done;
    stats.lost = s.lost;
    stats.refused = s.refused.load(std::memory_order_relaxed);
    stats.deferred = s.deferred;
    stats.closed = s.closed.load(std::memory_order_relaxed);
    stats.producers = s.producers;
    stats.queue_memory_bytes = s.queue.MemoryBytes();
    stats.queue_disk_bytes = s.queue.DiskBytes();
    stats.spilled_segments = s.queue.SpilledSegments();
    stats.spill_failures = s.queue.SpillFailures();
    stats.lanes = s.queue.LaneCount();
    stats.top_lanes = s.queue.TopLanes(kTopLanesInStats);
  }
  stats.accepted = s.accepted.load(std::memory_order_relaxed);
  stats.dropped = s.dropped.load(std::memory_order_relaxed);
  s.filter.FillStats(stats);
  internal::FillSampleStats(s.sample, stats);
  stats.overflow_warnings = s.warner.warnings();
  return stats;
}

absl::Status MemorySieve::Health() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->queue.WaitForWrites();  // their outcome is part of the answer
  return state_->queue.Health();
}

}  // namespace sieve
