#include "lanes.h"

#include <algorithm>
#include <utility>

namespace sieve::internal {

namespace fs = std::filesystem;

LaneSet::LaneSet(SpillQueueOptions options)
    : options_(std::move(options)),
      store_(options_.spill_dir, options_.log, MaxUnwrittenBytesFor(options_.memory_budget_bytes)) {
}

SpillQueue& LaneSet::LaneFor(int32_t priority) {
  if (last_lane_ != nullptr && last_priority_ == priority) return *last_lane_;
  SpillQueue*& lane = by_priority_[priority];
  if (lane == nullptr) {
    auto queue = std::make_unique<SpillQueue>(options_, &store_);
    lane = queue.get();
    lanes_.emplace(priority, std::move(queue));
    memory_ += lane->ResidentBytes();
  }
  last_priority_ = priority;
  last_lane_ = lane;
  return *lane;
}

template <typename Change>
auto LaneSet::Tracked(SpillQueue& lane, Change&& change) {
  const size_t memory_before = lane.ResidentBytes();
  const size_t size_before = lane.Size();
  // One lane decides alone, exactly as the single queue did; with more, the
  // lanes' sum is what the budget bounds.
  store_.set_over_budget(lanes_.size() > 1 && MemoryBytes() > options_.memory_budget_bytes);
  auto result = change();
  memory_ = memory_ - memory_before + lane.ResidentBytes();
  size_ = size_ - size_before + lane.Size();
  return result;
}

void LaneSet::Push(int32_t priority, std::string_view url, std::string_view payload) {
  SpillQueue& lane = LaneFor(priority);
  Tracked(lane, [&] {
    lane.Push(url, payload);
    return true;
  });
  if (lanes_.size() > 1) Rebalance();
}

void LaneSet::PushUnder(int32_t priority, std::string_view url, std::string_view payload) {
  SpillQueue& lane = LaneFor(priority);
  Tracked(lane, [&] {
    lane.PushUnder(url, payload);
    return true;
  });
  if (lanes_.size() > 1) Rebalance();
}

void LaneSet::DropIfEmpty(LaneMap::iterator it) {
  if (it->second->Size() != 0) return;
  if (last_lane_ == it->second.get()) last_lane_ = nullptr;
  memory_ -= it->second->ResidentBytes();
  by_priority_.erase(it->first);
  lanes_.erase(it);
}

absl::StatusOr<std::optional<SieveEntry>> LaneSet::Pop() {
  if (lanes_.empty()) return std::nullopt;
  auto top = lanes_.begin();
  SpillQueue& lane = *top->second;
  absl::StatusOr<std::optional<SieveEntry>> entry = Tracked(lane, [&] { return lane.Pop(); });
  if (entry.ok() && entry->has_value()) (*entry)->priority = top->first;
  DropIfEmpty(top);
  return entry;
}

void LaneSet::Rebalance() {
  const size_t slack = 2 * SegmentBytesFor(options_.memory_budget_bytes);
  if (MemoryBytes() <= options_.memory_budget_bytes + slack) return;
  if (stuck_at_ != 0 && MemoryBytes() < stuck_at_ + slack) return;
  // The segments with the writer as they are now: a part forced out joins
  // them, on its way to disk, and is not counted again (or the loop would
  // wait for each write, and force out every lane's part while it waits).
  // Only back under budget + slack, not down to the budget: one part at a
  // time, as pushes cross the line, so the writer works beside the pushes;
  // forcing out down to the budget queued ~200 small writes at once at 1,024
  // lanes, and the push that crossed the line waited for nearly all of them.
  const size_t held = store_.HeldBytes();
  while (memory_ + held > options_.memory_budget_bytes + slack) {
    SpillQueue* largest = nullptr;
    size_t largest_bytes = 0;
    for (auto& [priority, lane] : lanes_) {
      const size_t bytes = lane->ForcedSpillBytes();
      if (bytes > largest_bytes) {
        largest = lane.get();
        largest_bytes = bytes;
      }
    }
    if (largest == nullptr) {
      stuck_at_ = MemoryBytes();
      return;
    }
    Tracked(*largest, [&] {
      largest->ForceSpill();
      return true;
    });
  }
  stuck_at_ = 0;
}

std::vector<LaneStats> LaneSet::TopLanes(size_t n) const {
  std::vector<LaneStats> top;
  top.reserve(std::min(n, lanes_.size()));
  for (const auto& [priority, lane] : lanes_) {
    if (top.size() == n) break;
    top.push_back({priority, lane->Size()});
  }
  return top;
}

absl::StatusOr<std::vector<LaneFiles>> LaneSet::SaveTo(
    const fs::path& dir, const std::map<int32_t, Segment, std::greater<int32_t>>& in_flight) {
  std::vector<LaneFiles> saved;
  const Segment none;
  auto save_lane = [&](int32_t priority, SpillQueue& lane, const Segment& front) -> absl::Status {
    absl::StatusOr<std::vector<SpillQueue::FileRef>> files = lane.SaveTo(dir, front);
    if (!files.ok()) return files.status();
    if (!files->empty()) saved.push_back({priority, *std::move(files)});
    return absl::OkStatus();
  };
  auto lane = lanes_.begin();
  auto flight = in_flight.begin();
  // Both maps run highest first: merge them.
  while (lane != lanes_.end() || flight != in_flight.end()) {
    const bool take_lane =
        flight == in_flight.end() || (lane != lanes_.end() && lane->first >= flight->first);
    const bool take_flight =
        lane == lanes_.end() || (flight != in_flight.end() && flight->first >= lane->first);
    absl::Status status;
    if (take_lane) {
      status = save_lane(lane->first, *lane->second, take_flight ? flight->second : none);
    } else {
      SpillQueue empty(options_, &store_);  // in-flight URLs only
      status = save_lane(flight->first, empty, flight->second);
    }
    if (!status.ok()) return status;
    if (take_lane) ++lane;
    if (take_flight) ++flight;
  }
  return saved;
}

absl::Status LaneSet::Adopt(const fs::path& dir, const std::vector<LaneFiles>& lanes) {
  for (const LaneFiles& files : lanes) {
    if (files.files.empty()) continue;
    SpillQueue& lane = LaneFor(files.priority);
    absl::Status status = Tracked(lane, [&] { return lane.Adopt(dir, files.files); });
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status LaneSet::ForEach(
    absl::FunctionRef<absl::Status(int32_t, std::string_view, std::string_view)> fn) const {
  for (const auto& entry : lanes_) {
    const int32_t priority = entry.first;  // clang 14 captures no structured binding
    absl::Status status = entry.second->ForEach(
        [&](std::string_view url, std::string_view payload) { return fn(priority, url, payload); });
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace sieve::internal
