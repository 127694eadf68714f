#include "seen_filter.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "bloom/params.h"

namespace sieve::internal {
namespace {

bloom::FilterOptions FilterOptionsFor(const SieveOptions& options) {
  bloom::FilterOptions filter;
  filter.expected_count = options.expected_count;
  filter.fp_rate = options.fp_rate;
  filter.layout = options.layout;
  filter.huge_pages = options.huge_pages;
  return filter;
}

// How many stages of a ScalableBloomFilter with default growth (stage i: n0 2^i
// keys at p / 2^(i+1)) fit in `max_bytes`, at least 1; 0 when there is no cap.
uint32_t StagesWithin(const SieveOptions& options, const bloom::GrowthOptions& growth) {
  if (options.filter_memory_max_bytes == 0) return 0;
  uint64_t total = 0;
  uint32_t stages = 0;
  for (; stages < growth.max_stages; ++stages) {
    const double capacity = static_cast<double>(options.expected_count) *
                            std::pow(growth.growth_factor, static_cast<double>(stages));
    const double rate = options.fp_rate * (1.0 - growth.tightening_ratio) *
                        std::pow(growth.tightening_ratio, static_cast<double>(stages));
    if (capacity > 1e18) break;
    absl::StatusOr<bloom::FilterShape> shape =
        bloom::ShapeFor(options.layout, static_cast<uint64_t>(std::ceil(capacity)), rate);
    if (!shape.ok()) break;
    total += shape->MemoryBytes();
    if (total > options.filter_memory_max_bytes) break;
  }
  return std::max<uint32_t>(stages, 1);
}

}  // namespace

absl::StatusOr<SeenFilter> SeenFilter::Create(const SieveOptions& options) {
  const bloom::FilterOptions filter = FilterOptionsFor(options);
  if (options.overflow_policy == OverflowPolicy::kGrow) {
    bloom::GrowthOptions growth;
    const uint32_t max_stages = StagesWithin(options, growth);
    if (max_stages > 0) growth.max_stages = max_stages;
    absl::StatusOr<bloom::ScalableBloomFilter> scalable =
        bloom::ScalableBloomFilter::Create(filter, growth);
    if (!scalable.ok()) return scalable.status();
    scalable->EnableDirtyTracking();
    return SeenFilter(Filter(std::in_place_index<1>, *std::move(scalable)), true, max_stages);
  }
  absl::StatusOr<bloom::BloomFilter> fixed = bloom::BloomFilter::Create(filter);
  if (!fixed.ok()) return fixed.status();
  fixed->EnableDirtyTracking();
  return SeenFilter(Filter(std::in_place_index<0>, *std::move(fixed)), true);
}

SeenFilter SeenFilter::FromFixed(bloom::BloomFilter filter, bool tracked_from_empty) {
  return SeenFilter(Filter(std::in_place_index<0>, std::move(filter)), tracked_from_empty);
}

SeenFilter SeenFilter::FromScalable(bloom::ScalableBloomFilter filter) {
  return SeenFilter(Filter(std::in_place_index<1>, std::move(filter)));
}

absl::StatusOr<SeenFilter> SeenFilter::Load(OverflowPolicy policy, std::istream& in) {
  if (policy == OverflowPolicy::kGrow) {
    absl::StatusOr<bloom::ScalableBloomFilter> scalable = bloom::ScalableBloomFilter::Load(in);
    if (!scalable.ok()) return scalable.status();
    scalable->EnableDirtyTracking();  // clean: the loaded bits are already saved
    return SeenFilter(Filter(std::in_place_index<1>, *std::move(scalable)));
  }
  absl::StatusOr<bloom::BloomFilter> fixed = bloom::BloomFilter::Load(in);
  if (!fixed.ok()) return fixed.status();
  fixed->EnableDirtyTracking();  // clean: the loaded bits are already saved
  return SeenFilter(Filter(std::in_place_index<0>, *std::move(fixed)));
}

OverflowPolicy SeenFilter::policy() const {
  return filter_.index() == 1 ? OverflowPolicy::kGrow : OverflowPolicy::kWarn;
}

bool SeenFilter::InsertIfNew(const bloom::Hash128& hash) {
  return std::visit([&](auto& f) { return f.InsertIfNew(hash); }, filter_);
}

bool SeenFilter::MayContain(const bloom::Hash128& hash) const {
  return std::visit([&](const auto& f) { return f.MayContain(hash); }, filter_);
}

void SeenFilter::InsertIfNewBatch(absl::Span<const std::string_view> keys, absl::Span<bool> out) {
  std::visit([&](auto& f) { f.InsertIfNewBatch(keys, out); }, filter_);
}

void SeenFilter::InsertIfNewBatch(absl::Span<const bloom::Hash128> hashes, absl::Span<bool> out) {
  if (auto* fixed = std::get_if<bloom::BloomFilter>(&filter_)) {
    fixed->InsertIfNewBatch(hashes, out);
    return;
  }
  std::get<bloom::ScalableBloomFilter>(filter_).InsertIfNewBatch(hashes, out);
}

absl::Status SeenFilter::Save(std::ostream& out) const {
  return std::visit([&](const auto& f) { return f.Save(out); }, filter_);
}

uint64_t SeenFilter::InitialCapacity() const {
  if (const auto* scalable = std::get_if<bloom::ScalableBloomFilter>(&filter_)) {
    return scalable->InitialCapacity();
  }
  return Capacity();
}

size_t SeenFilter::StageCount() const {
  const auto* scalable = std::get_if<bloom::ScalableBloomFilter>(&filter_);
  return scalable != nullptr ? scalable->StageCount() : 1;
}

bool SeenFilter::AtMemoryCap() const {
  if (max_stages_ == 0 || StageCount() < max_stages_) return false;
  return EstimatedCount() >= static_cast<double>(Capacity());
}

uint64_t SeenFilter::Capacity() const {
  return std::visit([](const auto& f) { return f.Capacity(); }, filter_);
}

double SeenFilter::TargetFpRate() const {
  return std::visit([](const auto& f) { return f.TargetFpRate(); }, filter_);
}

double SeenFilter::EstimatedCount() const {
  return std::visit([](const auto& f) { return f.EstimatedCount(); }, filter_);
}

double SeenFilter::CurrentFpRate() const {
  return std::visit([](const auto& f) { return f.CurrentFpRate(); }, filter_);
}

double SeenFilter::FillRatio() const {
  return std::visit([](const auto& f) { return f.FillRatio(); }, filter_);
}

uint64_t SeenFilter::MemoryBytes() const {
  return std::visit([](const auto& f) -> uint64_t { return f.MemoryBytes(); }, filter_);
}

void SeenFilter::FillStats(SieveStats& stats) const {
  const double estimated = EstimatedCount();
  stats.filter_saturated = !std::isfinite(estimated);
  stats.estimated_count =
      stats.filter_saturated ? std::nullopt : std::optional<double>(std::max(0.0, estimated));
  const double rate = CurrentFpRate();
  stats.current_fp_rate = std::isfinite(rate) ? std::clamp(rate, 0.0, 1.0) : 1.0;
  stats.capacity = Capacity();
  stats.target_fp_rate = TargetFpRate();
  stats.fill_ratio = FillRatio();
  stats.filter_bytes = MemoryBytes();
}

}  // namespace sieve::internal
