#include "seen_filter.h"

#include <utility>

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

}  // namespace

absl::StatusOr<SeenFilter> SeenFilter::Create(const SieveOptions& options) {
  const bloom::FilterOptions filter = FilterOptionsFor(options);
  if (options.overflow_policy == OverflowPolicy::kGrow) {
    absl::StatusOr<bloom::ScalableBloomFilter> scalable =
        bloom::ScalableBloomFilter::Create(filter);
    if (!scalable.ok()) return scalable.status();
    scalable->EnableDirtyTracking();
    return SeenFilter(Filter(std::in_place_index<1>, *std::move(scalable)), true);
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

void SeenFilter::InsertIfNewBatch(absl::Span<const std::string_view> keys, absl::Span<bool> out) {
  std::visit([&](auto& f) { f.InsertIfNewBatch(keys, out); }, filter_);
}

absl::Status SeenFilter::Save(std::ostream& out) const {
  return std::visit([&](const auto& f) { return f.Save(out); }, filter_);
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

}  // namespace sieve::internal
