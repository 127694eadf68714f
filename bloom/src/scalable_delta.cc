// ScalableBloomFilter's per-stage deltas (format in bloom/scalable_filter.h,
// "Incremental persistence"): Save's header under magic "CRAWLSBD", then one
// BloomFilter delta per stage.
#include <mutex>

#include "absl/strings/str_cat.h"
#include "bloom/scalable_filter.h"
#include "scalable_stage.h"

namespace bloom {
namespace {

constexpr char kDeltaMagic[8] = {'C', 'R', 'A', 'W', 'L', 'S', 'B', 'D'};
// Save's header: 56 fixed bytes, 16 per stage, an 8-byte checksum.
uint64_t HeaderBytes(uint64_t stages) { return 56 + 16 * stages + 8; }

bool SameOptions(const FilterOptions& a, const GrowthOptions& ag, const FilterOptions& b,
                 const GrowthOptions& bg) {
  return a.layout == b.layout && a.expected_count == b.expected_count && a.fp_rate == b.fp_rate &&
         ag.growth_factor == bg.growth_factor && ag.tightening_ratio == bg.tightening_ratio &&
         ag.max_stages == bg.max_stages;
}

}  // namespace

void ScalableBloomFilter::EnableDirtyTracking() {
  std::unique_lock lock(*mutex_);
  track_dirty_ = true;
  for (const auto& s : stages_) {
    if (!s->filter.DirtyTrackingEnabled()) s->filter.EnableDirtyTracking();
  }
}

uint64_t ScalableBloomFilter::DirtyBlockCount() const {
  std::shared_lock lock(*mutex_);
  uint64_t blocks = 0;
  for (const auto& s : stages_) blocks += s->filter.DirtyBlockCount();
  return blocks;
}

uint64_t ScalableBloomFilter::DeltaBytes(uint64_t stages, uint64_t blocks) {
  return HeaderBytes(stages) + stages * BloomFilter::DeltaBytes(0) + 68 * blocks;
}

uint64_t ScalableBloomFilter::DeltaBytes() const {
  const uint64_t blocks = DirtyBlockCount();
  return DeltaBytes(StageCount(), blocks);
}

uint64_t ScalableBloomFilter::ImageBytes() const {
  std::shared_lock lock(*mutex_);
  uint64_t bytes = HeaderBytes(stages_.size());
  for (const auto& s : stages_) bytes += 64 + s->filter.MemoryBytes() + 8;
  return bytes;
}

absl::StatusOr<uint64_t> ScalableBloomFilter::SaveDirtyBlocks(std::ostream& out) const {
  std::shared_lock lock(*mutex_);
  if (!track_dirty_) {
    return absl::FailedPreconditionError("bloom: dirty tracking is off for this scalable filter");
  }
  const std::string header = EncodeHeader(kDeltaMagic);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  uint64_t written = header.size();
  for (const auto& s : stages_) {
    absl::StatusOr<uint64_t> bytes = s->filter.SaveDirtyBlocks(out);
    if (!bytes.ok()) return bytes.status();
    written += *bytes;
  }
  if (!out) return absl::DataLossError("bloom: cannot save scalable filter delta: write failed");
  return written;
}

void ScalableBloomFilter::ClearDirtyBlocks() {
  std::shared_lock lock(*mutex_);
  for (const auto& s : stages_) s->filter.ClearDirtyBlocks();
}

absl::Status ScalableBloomFilter::ApplyDelta(std::istream& in) {
  absl::StatusOr<Header> header = DecodeHeader(in, kDeltaMagic);
  if (!header.ok()) return header.status();
  return ApplyDecoded(*header, in);
}

absl::Status ScalableBloomFilter::ApplyDecoded(const Header& delta, std::istream& in) {
  const Header* header = &delta;
  std::unique_lock lock(*mutex_);
  if (!SameOptions(header->options, header->growth, options_, growth_)) {
    return absl::InvalidArgumentError(
        "bloom: scalable filter delta is of a filter with other options");
  }
  if (header->stages.size() < stages_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("bloom: scalable filter delta has ",
                                                   header->stages.size(),
                                                   " stages, the filter already ", stages_.size()));
  }
  while (stages_.size() < header->stages.size()) {
    if (absl::Status s = AddStage(); !s.ok()) return s;
  }
  for (size_t i = 0; i < stages_.size(); ++i) {
    Stage& stage = *stages_[i];
    if (absl::Status s = stage.filter.ApplyBlocks(in); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("stage ", i, ": ", s.message()));
    }
    const uint64_t inserted = header->stages[i].second;
    stage.inserted.store(inserted, std::memory_order_relaxed);
    stage.full.store(inserted >= stage.capacity || stage.filter.BitsSet() >= stage.full_at_bits,
                     std::memory_order_relaxed);
  }
  return absl::OkStatus();
}

absl::StatusOr<ScalableBloomFilter> ScalableBloomFilter::LoadDelta(std::istream& in) {
  absl::StatusOr<Header> header = DecodeHeader(in, kDeltaMagic);
  if (!header.ok()) return header.status();
  absl::StatusOr<ScalableBloomFilter> filter = Create(header->options, header->growth);
  if (!filter.ok()) return absl::DataLossError(filter.status().message());
  filter->track_dirty_ = true;  // as the filter that saved it: stages track from their start
  for (const auto& s : filter->stages_) s->filter.EnableDirtyTracking();
  if (absl::Status s = filter->ApplyDecoded(*header, in); !s.ok()) return s;
  filter->ClearDirtyBlocks();  // what was applied is saved already
  return filter;
}

}  // namespace bloom
