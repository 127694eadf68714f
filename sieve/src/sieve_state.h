// The in-memory Sieve's state, shared by memory_sieve.cc (push/pop) and checkpoint.cc (save/open).
//
// Locks, always taken in this order: one stripe lock (by the URL's hash), then
// `mutex`, then the spill store's (SpillStore::mutex_, spill_store.h: `queue`
// owns the store). The store's writer thread takes only the last, and nothing
// is taken while it is held. A push that finds kMaxUnwrittenSegments segments
// with the writer waits for it holding its stripe and `mutex` (pops wait
// with it); a pop that reaches a segment being written, and Save, wait the
// same way for that write. A push holds its stripe across the filter's check-and-insert *and*
// the enqueue, so a URL is never in the filter without being queued when Save
// (which takes every stripe, then `mutex`) looks; and two pushes of the same URL
// serialize on its stripe, so exactly one sees it as new.
#ifndef SIEVE_SRC_SIEVE_STATE_H_
#define SIEVE_SRC_SIEVE_STATE_H_

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "filter_checkpoint.h"
#include "fp_sample.h"
#include "lanes.h"
#include "overflow_warning.h"
#include "seen_filter.h"
#include "sieve/memory_sieve.h"
#include "spill_queue.h"

namespace sieve {

// 32 stripes: with 8 pushing threads, two pushes of different URLs share a
// stripe with probability ~1/32, so the locks cost little contention. Not
// more: a batch push and Save hold every stripe plus the queue mutex, and
// TSan's deadlock detector tracks at most 64 locks held by one thread.
inline constexpr size_t kStripeCount = 32;

// Holds every stripe lock, in index order (so two holders cannot deadlock):
// no push is between its filter check and its enqueue while this lives.
class AllStripesLock {
 public:
  explicit AllStripesLock(std::array<std::mutex, kStripeCount>& stripes) : stripes_(stripes) {
    for (std::mutex& m : stripes_) m.lock();
  }
  ~AllStripesLock() {
    for (std::mutex& m : stripes_) m.unlock();
  }
  AllStripesLock(const AllStripesLock&) = delete;
  AllStripesLock& operator=(const AllStripesLock&) = delete;

 private:
  std::array<std::mutex, kStripeCount>& stripes_;
};

// Counters saved in checkpoints.
struct SieveCounters {
  uint64_t accepted = 0;
  uint64_t dropped = 0;
  uint64_t popped = 0;
  uint64_t done = 0;
  uint64_t lost = 0;
  uint64_t overflow_warnings = 0;
};

struct MemorySieve::State {
  State(internal::SeenFilter filter_in, internal::SpillQueueOptions queue_options,
        const SieveCounters& counters, const internal::FpSample::Options& sample_options = {});

  internal::SeenFilter filter;
  const LogSink log;          // SieveOptions::log_sink (empty: the default sink)
  internal::FpSample sample;  // the measured rate (fp_sample.h); its own file in checkpoints
  internal::OverflowWarner warner;
  std::array<std::mutex, kStripeCount> stripes;
  std::atomic<uint64_t> accepted;
  std::atomic<uint64_t> dropped;
  std::atomic<uint64_t> refused{0};       // payload over kMaxPayloadBytes, lanes full; not saved
  std::atomic<bool> warned_lanes{false};  // the lane bound's refusal was logged
  // queue.LaneCount(), written under `mutex`, read without it by the pushes'
  // check of the lane bound (only near the bound do they take the mutex).
  std::atomic<size_t> lanes{0};
  std::atomic<bool> closed{false};

  // Held through a whole Save (one Save at a time: a Save removes the files
  // of earlier ones once its manifest is in place). Taken before any other.
  std::mutex save_mutex;
  // The filter's checkpoint files so far (filter_checkpoint.h): the next
  // Save adds a delta to them. Used under save_mutex and every stripe.
  internal::FilterChain filter_chain;

  mutable std::mutex mutex;
  std::condition_variable changed;  // queue grew, work finished, or closed
  internal::LaneSet queue ABSL_GUARDED_BY(mutex);
  // A popped URL's pop sequence number (so that Save can write them back in
  // the order they were popped) and its payload (for Defer and Save).
  struct InFlight {
    uint64_t seq = 0;
    std::string payload;
    int32_t priority = 0;
  };
  // Popped, not yet done. (A URL is queued once, so it is in flight at most
  // once.) Bounded by the consumers' pops not yet done. Looked up by
  // absl::string_view (MarkDone, Defer): no key copied to find one (Debian's
  // Abseil has its own string_view, which std::string_view does not convert to).
  absl::flat_hash_map<std::string, InFlight> in_flight ABSL_GUARDED_BY(mutex);
  uint64_t popped ABSL_GUARDED_BY(mutex) = 0;
  uint64_t done ABSL_GUARDED_BY(mutex) = 0;
  uint64_t lost ABSL_GUARDED_BY(mutex) = 0;
  uint64_t deferred ABSL_GUARDED_BY(mutex) = 0;  // not saved: a runtime figure
  // AddProducer calls not yet matched by ProducerDone: while > 0 a Pop waits
  // on an empty queue. Not saved: producers belong to a process.
  uint64_t producers ABSL_GUARDED_BY(mutex) = 0;
};

}  // namespace sieve

#endif  // SIEVE_SRC_SIEVE_STATE_H_
