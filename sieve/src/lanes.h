// The Sieve's queue: one SpillQueue per live priority (a lane), popped
// highest priority first, all spilling into one SpillStore within one memory
// budget.
//
// Bounds: at most kMaxLanes lanes (sieve/sieve.h; the Sieve checks before its
// filter, this class only counts); an empty lane is dropped at once, so lanes
// are the priorities with URLs queued. A lane costs ~0.3 KiB of bookkeeping
// (its SpillQueue and map node). Memory: one lane behaves exactly as the
// single queue did (budget plus about three segments). With more, each lane
// spills its tail once the lanes together pass the budget, and past the
// budget plus two segments the largest in-memory parts of the lanes are
// written out together as one pack (one spill file, spill_store.h) of at
// least a segment's worth, until they are under that line again (one pack
// per crossing, so that the spill writer works beside the pushes); a part
// under kMinForcedSpillBytes (4 KiB) stays, so 1,024 lanes add at most
// ~4 MiB.
//
//   LaneSet lanes({.memory_budget_bytes = 64 << 20, .spill_dir = "/var/tmp"});
//   lanes.Push(10, "https://a.example/", "");
//   lanes.Push(0, "https://b.example/", "");
//   absl::StatusOr<std::optional<SieveEntry>> e = lanes.Pop();  // a.example, priority 10
//
// Threading: not thread-safe; the Sieve calls it under its queue mutex.
#ifndef SIEVE_SRC_LANES_H_
#define SIEVE_SRC_LANES_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "segment.h"
#include "sieve/stats.h"
#include "spill_queue.h"
#include "spill_store.h"

namespace sieve::internal {

// One lane of a checkpoint: its priority and its segment files, in the order
// SpillQueue::SaveTo writes them.
struct LaneFiles {
  int32_t priority = 0;
  std::vector<SpillQueue::FileRef> files;
};

class LaneSet {
 public:
  explicit LaneSet(SpillQueueOptions options);
  LaneSet(const LaneSet&) = delete;
  LaneSet& operator=(const LaneSet&) = delete;

  // Enqueues into the lane of `priority`, opening it if needed.
  void Push(int32_t priority, std::string_view url, std::string_view payload);
  // Enqueues behind everything queued in that lane (Sieve::Defer).
  void PushUnder(int32_t priority, std::string_view url, std::string_view payload);
  // The next URL of the highest lane, with its priority; nullopt if empty;
  // an error if a spill file cannot be read back (as SpillQueue::Pop; its
  // URLs are no longer counted).
  absl::StatusOr<std::optional<SieveEntry>> Pop();

  bool HasLane(int32_t priority) const { return by_priority_.contains(priority); }
  size_t LaneCount() const { return lanes_.size(); }
  // The highest `n` lanes, highest first.
  std::vector<LaneStats> TopLanes(size_t n) const;

  size_t Size() const { return size_; }
  // The lanes' in-memory parts and the segments with the store's writer.
  size_t MemoryBytes() const { return memory_ + store_.HeldBytes(); }
  // See SpillStore::WaitForWrites.
  void WaitForWrites() const { store_.WaitForWrites(); }
  uint64_t DiskBytes() const { return store_.DiskBytes(); }
  size_t SpilledSegments() const { return store_.SpilledFiles(); }
  uint64_t SpillFailures() const { return store_.SpillFailures(); }
  absl::Status Health() const { return store_.Health(); }
  LaneOrder order() const { return options_.order; }

  // Writes every lane into `dir` (SpillQueue::SaveTo), highest first, with
  // the in-flight URLs of each priority as its `front`; a priority with
  // in-flight URLs only becomes a lane of them.
  absl::StatusOr<std::vector<LaneFiles>> SaveTo(
      const std::filesystem::path& dir,
      const std::map<int32_t, Segment, std::greater<int32_t>>& in_flight);
  // Adopts a checkpoint's lanes into this (empty) set (SpillQueue::Adopt).
  absl::Status Adopt(const std::filesystem::path& dir, const std::vector<LaneFiles>& lanes);

  // Calls fn(priority, url, payload) on every queued URL, highest lane first,
  // in each lane's SaveTo order; for tests.
  absl::Status ForEach(
      absl::FunctionRef<absl::Status(int32_t, std::string_view, std::string_view)> fn) const;

 private:
  SpillQueue& LaneFor(int32_t priority);
  // Runs `change` on `lane` and keeps memory_ and size_ current.
  template <typename Change>
  auto Tracked(SpillQueue& lane, Change&& change);
  using LaneMap = std::map<int32_t, std::unique_ptr<SpillQueue>, std::greater<int32_t>>;
  void DropIfEmpty(LaneMap::iterator it);
  void Rebalance();

  const SpillQueueOptions options_;
  SpillStore store_;
  LaneMap lanes_;
  // The same lanes by priority: a push at 1,024 lanes found its lane in
  // ~10 map levels of pointer chasing (~40 ns a URL under perf); the ordered
  // map stays for Pop and the walks in order.
  absl::flat_hash_map<int32_t, SpillQueue*> by_priority_;
  // The lane of the last push: crawls push long runs at one priority.
  int32_t last_priority_ = 0;
  SpillQueue* last_lane_ = nullptr;
  size_t size_ = 0;
  size_t memory_ = 0;  // the lanes' ResidentBytes()
  // Where the last Rebalance could get no lower (every part too small to
  // spill): the next waits until memory grows a segment past it.
  size_t stuck_at_ = 0;
};

}  // namespace sieve::internal

#endif  // SIEVE_SRC_LANES_H_
