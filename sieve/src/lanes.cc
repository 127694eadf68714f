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
  const size_t segment = SegmentBytesFor(options_.memory_budget_bytes);
  const size_t line = options_.memory_budget_bytes + 2 * segment;
  if (MemoryBytes() <= line) return;
  if (stuck_at_ != 0 && MemoryBytes() < stuck_at_ + 2 * segment) return;
  // The largest in-memory parts go out together, as one pack (one file):
  // at 1,024 lanes a part is ~64-80 KiB, and a file per part cost more in
  // the kernel's file creation and deletion than the pushes themselves.
  std::vector<std::pair<size_t, SpillQueue*>> parts;
  for (auto& [priority, lane] : lanes_) {
    if (const size_t bytes = lane->ForcedSpillBytes(); bytes != 0) {
      parts.push_back({bytes, lane.get()});
    }
  }
  if (parts.empty()) {
    stuck_at_ = MemoryBytes();
    return;
  }
  stuck_at_ = 0;
  std::sort(parts.begin(), parts.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  absl::StatusOr<SpillTarget> pack = store_.NewTarget();
  if (!pack.ok()) {
    // No file name: the largest part tries alone (and stays in memory,
    // reporting the failure, as any spill that cannot be written).
    SpillQueue& largest = *parts.front().second;
    Tracked(largest, [&] {
      largest.ForceSpill();
      return true;
    });
    return;
  }
  // The segments with the writer as they are now: a part forced out joins
  // them, on its way to disk, and is not counted again. A pack takes parts
  // until it holds a segment's worth and memory is back under the line
  // (budget + 2 segments), not down to the budget, so the writer works
  // beside the pushes, one pack per crossing.
  const size_t held = store_.HeldBytes();
  size_t packed = 0;
  for (const auto& [bytes, lane] : parts) {
    if (packed >= segment && memory_ + held <= line) break;
    SpillQueue& part_of = *lane;
    Tracked(part_of, [&] {
      part_of.ForceSpill(&*pack);
      return true;
    });
    packed += bytes;
  }
  // A part counted by its capacity may hold no records (a tail's buffer
  // reserved after its spill): forcing it out only freed the buffer.
  if (pack->job->parts.empty()) return;
  store_.Submit(std::move(pack->job));  // waits only if the writer is full
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
  SpillQueue::LinkedFiles linked;  // a pack is linked once, for all its lanes
  auto save_lane = [&](int32_t priority, SpillQueue& lane, const Segment& front) -> absl::Status {
    absl::StatusOr<std::vector<SpillQueue::FileRef>> files = lane.SaveTo(dir, front, &linked);
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
  SpillQueue::AdoptedFiles adopted;  // a pack is adopted once, for all its lanes
  for (const LaneFiles& files : lanes) {
    if (files.files.empty()) continue;
    SpillQueue& lane = LaneFor(files.priority);
    absl::Status status = Tracked(lane, [&] { return lane.Adopt(dir, files.files, &adopted); });
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
