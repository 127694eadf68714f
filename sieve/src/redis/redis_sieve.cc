// RedisSieve's Sieve methods: local bookkeeping around the round trips of
// round_trips.cc.
#include "sieve/redis_sieve.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include "../log_emit.h"
#include "absl/strings/str_cat.h"
#include "lane_queue.h"
#include "queue_element.h"
#include "queue_partitions.h"
#include "redis_state.h"
#include "round_trips.h"

namespace sieve {

using internal::AckAndLease;
using internal::Usable;

namespace {

// Acks older than this go out with the next call even if few.
constexpr std::chrono::seconds kMaxAckDelay{1};

bool AcksDue(const RedisSieve::State& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  return !s.acks.empty() && (s.acks.size() >= s.options.done_batch_size ||
                             std::chrono::steady_clock::now() - s.oldest_ack >= kMaxAckDelay);
}

}  // namespace

RedisSieve::~RedisSieve() {
  State& s = *state_;
  if (s.heartbeat.joinable()) {
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.stopping = true;
    }
    s.closed_changed.notify_all();
    s.heartbeat.join();
  }
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.failure.ok()) return;
  if (!s.acks.empty()) AckAndLease(s, 0);
  // Unreturned leases and undone pops go back to their hosts' heads, and
  // the hosts are given back: another client takes them now rather than
  // after the leases expire.
  std::vector<internal::ElementOfHost> give_back;
  for (const auto& [url, flight] : s.in_flight) give_back.push_back({flight.element, flight.host});
  for (const State::Prefetched& p : s.prefetched) give_back.push_back({p.element, p.host});
  const bool hosts = static_cast<bool>(s.options.host_key);
  if ((!give_back.empty() || hosts) && s.failure.ok()) {
    internal::Release(s, "head", give_back, hosts);
  }
}

bool RedisSieve::AcceptsPriority(int32_t priority) const {
  return priority >= kRedisMinPriority && priority <= kRedisMaxPriority;
}

bool RedisSieve::Push(std::string_view url, std::string_view payload, int32_t priority) {
  bool accepted = false;
  PushBatch({&url, 1}, {&payload, 1}, {&priority, 1}, {&accepted, 1});
  return accepted;
}

namespace {

// A URL with a NUL byte would be cut there when its queue element is read
// back (queue_element.h); a payload over kMaxPayloadBytes is refused as by
// the in-memory Sieve.
bool Storable(std::string_view url, std::string_view payload) {
  return url.find('\0') == std::string_view::npos && payload.size() <= kMaxPayloadBytes;
}

// A priority outside [kRedisMinPriority, kRedisMaxPriority] is refused (the
// scripts' work per host and per pop grows with the lanes), and the first
// refusal says why.
bool PriorityRefused(RedisSieve::State& s, absl::Span<const int32_t> priorities, size_t i)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  if (priorities.empty()) return false;
  const int32_t priority = priorities[i];
  if (priority >= kRedisMinPriority && priority <= kRedisMaxPriority) return false;
  if (!s.warned_priority) {
    s.warned_priority = true;
    internal::Emit(s.options.log_sink, LogLevel::kError,
                   absl::StrCat("sieve: a push at priority ", priority,
                                " is refused: the Redis frontier takes priorities from ",
                                kRedisMinPriority, " to ", kRedisMaxPriority, " (docs/redis.md)"));
  }
  return true;
}

// A URL this client queued at a priority other than 0: its partition's
// best lane is at least that now (pops ask the best partition first).
void NoteLane(RedisSieve::State& s, const std::string& queue, int32_t priority)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  s.lanes_seen = true;
  int64_t& best = s.part_figures[internal::PartitionOfHost(queue, s.partitions)].best_lane;
  best = std::max<int64_t>(best, priority);  // an unknown one stays unknown: asked first
}

}  // namespace

size_t RedisSieve::PushBatch(absl::Span<const std::string_view> urls,
                             absl::Span<const std::string_view> payloads,
                             absl::Span<const int32_t> priorities, absl::Span<bool> accepted) {
  State& s = *state_;
  std::fill(accepted.begin(), accepted.end(), false);
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!Usable(s) || urls.empty()) return 0;
  // The storable URLs and their queue elements; `index` maps them back.
  std::vector<std::string_view> kept;
  std::vector<std::string> elements;
  std::vector<std::string> queues;  // each URL's host lane (lane_queue.h)
  std::vector<size_t> index;
  kept.reserve(urls.size());
  elements.reserve(urls.size());
  queues.reserve(urls.size());
  index.reserve(urls.size());
  for (size_t i = 0; i < urls.size(); ++i) {
    const std::string_view payload = payloads.empty() ? std::string_view() : payloads[i];
    if (!Storable(urls[i], payload) || PriorityRefused(s, priorities, i)) {
      ++s.refused;
      continue;
    }
    kept.push_back(urls[i]);
    elements.push_back(internal::EncodeQueueElement(urls[i], payload));
    queues.push_back(
        internal::LaneQueueId(s.options.host_key ? s.options.host_key(urls[i]) : std::string(),
                              priorities.empty() ? 0 : priorities[i]));
    index.push_back(i);
  }
  if (kept.empty()) return 0;
  std::unique_ptr<bool[]> is_new(new bool[kept.size()]());
  if (!internal::PushUrls(s, kept, elements, queues, absl::Span<bool>(is_new.get(), kept.size()))) {
    return 0;
  }
  size_t count = 0;
  for (size_t j = 0; j < kept.size(); ++j) {
    count += is_new[j];
    if (!accepted.empty()) accepted[index[j]] = is_new[j];
    const int32_t priority = priorities.empty() ? 0 : priorities[index[j]];
    if (is_new[j] && priority != 0) NoteLane(s, queues[j], priority);
  }
  s.accepted += count;
  s.dropped += kept.size() - count;
  internal::RefreshFleetFigures(s, /*force=*/false);  // for the capacity warning
  return count;
}

std::optional<SieveEntry> RedisSieve::TryPopEntry() {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!Usable(s)) return std::nullopt;
  if (s.prefetched.empty() || AcksDue(s)) {
    if (!AckAndLease(s, s.prefetched.empty() ? s.options.pop_batch_size : 0)) return std::nullopt;
  }
  if (s.prefetched.empty()) return std::nullopt;
  State::Prefetched next = std::move(s.prefetched.front());
  s.prefetched.pop_front();
  std::string element = std::move(next.element);
  std::string host = std::move(next.host);
  SieveEntry entry = internal::DecodeQueueElement(element);
  entry.priority = next.priority;
  s.in_flight.insert_or_assign(entry.url, State::InFlight{std::move(host), std::move(element)});
  ++s.popped;
  return entry;
}

std::optional<SieveEntry> RedisSieve::PopEntryFor(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (std::optional<SieveEntry> entry = TryPopEntry()) return entry;
    if (IsFinished()) return std::nullopt;
    State& s = *state_;
    std::unique_lock<std::mutex> lock(s.mutex);
    const auto wake =
        std::min(deadline, std::chrono::steady_clock::now() + s.options.poll_interval);
    s.closed_changed.wait_until(lock, wake,
                                [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return s.closed; });
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
  }
}

std::optional<SieveEntry> RedisSieve::PopEntry() {
  // Polls: other processes may push at any time, and Redis has no wake-up
  // this client could wait on without a second connection.
  for (;;) {
    if (std::optional<SieveEntry> entry = PopEntryFor(std::chrono::hours(1))) return entry;
    if (IsFinished()) return std::nullopt;
  }
}

bool RedisSieve::MarkDone(std::string_view url) {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.in_flight.find(std::string(url));
  if (it == s.in_flight.end()) return false;
  if (s.acks.empty()) s.oldest_ack = std::chrono::steady_clock::now();
  auto node = s.in_flight.extract(it);
  s.acks.push_back({std::move(node.mapped().element),
                    internal::PartitionOfHost(node.mapped().host, s.partitions)});
  internal::UrlLeftClient(s, node.mapped().host);
  ++s.done;
  if (AcksDue(s) && Usable(s)) AckAndLease(s, 0);
  return true;
}

bool RedisSieve::Defer(std::string_view url) {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.in_flight.find(std::string(url));
  if (it == s.in_flight.end() || !Usable(s)) return false;
  auto node = s.in_flight.extract(it);
  std::vector<internal::ElementOfHost> elements = {
      {std::move(node.mapped().element), node.mapped().host}};
  internal::UrlLeftClient(s, node.mapped().host);
  std::optional<long long> released = internal::Release(s, "tail", elements, /*all_hosts=*/false);
  if (!released.has_value() || *released == 0) return false;
  ++s.deferred;
  return true;
}

void RedisSieve::Close() {
  State& s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.closed = true;
  }
  s.closed_changed.notify_all();
}

bool RedisSieve::IsFinished() const {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!Usable(s)) return true;
  if (!s.prefetched.empty() || !s.in_flight.empty() || s.producers > 0) return false;
  std::optional<bool> finished = internal::FleetIsFinished(s);
  return !finished.has_value() || *finished;  // failed: as closed
}

void RedisSieve::AddProducer() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  ++state_->producers;
}

void RedisSieve::ProducerDone() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (state_->producers > 0) --state_->producers;
  }
  state_->closed_changed.notify_all();  // pollers look again at once
}

absl::Status RedisSieve::Save(const std::filesystem::path&) const {
  return absl::UnimplementedError(
      "a Redis frontier keeps its state in Redis: persist it with Redis (AOF or RDB), not Save");
}

absl::Status RedisSieve::Health() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->failure;
}

uint64_t RedisSieve::bit_count() const { return state_->layout.bits(); }
uint32_t RedisSieve::hash_count() const { return state_->layout.hash_count(); }
uint32_t RedisSieve::queue_partitions() const { return state_->partitions; }
bool RedisSieve::packs_queue_batches() const { return state_->packed_batches; }
bool RedisSieve::uses_push_module() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->push_module;
}

SieveStats RedisSieve::Stats() const {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  internal::RefreshFleetFigures(s, /*force=*/false);
  SieveStats stats;
  // URLs leased into this client but not yet returned by a pop are queued
  // from the caller's point of view.
  const uint64_t buffered = std::min<uint64_t>(s.prefetched.size(), s.fleet_leases);
  stats.queued = s.queued + buffered;
  stats.in_flight = s.fleet_leases - buffered;
  stats.accepted = s.accepted;
  stats.dropped = s.dropped;
  stats.popped = s.popped;
  stats.done = s.done;
  stats.deferred = s.deferred;
  stats.refused = s.refused;
  stats.closed = s.closed || !s.failure.ok();
  // A saturated filter's n^ is infinite: unknown, not a number (stats.h).
  const double estimated = s.layout.EstimatedCount(s.bits_set);
  stats.filter_saturated = !std::isfinite(estimated);
  if (stats.filter_saturated) {
    stats.estimated_count = std::nullopt;
  } else {
    stats.estimated_count = std::max(0.0, estimated);
  }
  stats.capacity = s.layout.capacity();
  stats.target_fp_rate = s.layout.target_fp_rate();
  const double rate = s.layout.FpRate(estimated);
  stats.current_fp_rate = std::isfinite(rate) ? std::clamp(rate, 0.0, 1.0) : 1.0;
  stats.fp_measured_unknown =
      "a shared (Redis) frontier keeps no exact sample: the rate is not measured";
  stats.fill_ratio = static_cast<double>(s.bits_set) / static_cast<double>(s.layout.bits());
  stats.overflow_warnings = s.overflow_warnings;
  stats.filter_bytes = s.layout.bits() / 8;
  return stats;
}

}  // namespace sieve
