// BloomFilter: creation, ownership and the single-key operations.
#include "bloom/filter.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "bit_storage.h"
#include "bits_set_counter.h"
#include "dirty_blocks.h"
#include "hash_inline.h"
#include "probes.h"

namespace bloom {

absl::StatusOr<BloomFilter> BloomFilter::Create(const FilterOptions& options) {
  absl::StatusOr<FilterShape> shape =
      ShapeFor(options.layout, options.expected_count, options.fp_rate);
  if (!shape.ok()) return shape.status();
  return CreateWithShape(options.layout, *shape, options.expected_count, options.fp_rate,
                         options.huge_pages);
}

absl::StatusOr<BloomFilter> BloomFilter::CreateWithShape(Layout layout, const FilterShape& shape,
                                                         uint64_t expected_count, double fp_rate,
                                                         bool huge_pages) {
  if (layout != Layout::kBlocked && layout != Layout::kClassic) {
    return absl::InvalidArgumentError("bloom: unknown layout");
  }
  if (shape.hash_count < 1 || shape.hash_count > kMaxHashCount) {
    return absl::InvalidArgumentError(
        absl::StrCat("bloom: hash count must be in [1, ", kMaxHashCount, "]"));
  }
  if (shape.bits < 1 || shape.bits > kMaxBits) {
    return absl::OutOfRangeError(absl::StrCat("bloom: bit count must be in [1, ", kMaxBits, "]"));
  }
  FilterShape rounded = shape;
  const uint64_t unit = layout == Layout::kBlocked ? kBlockBits : 64;
  rounded.bits = (shape.bits + unit - 1) / unit * unit;
  absl::StatusOr<std::unique_ptr<BitStorage>> storage =
      BitStorage::Allocate(rounded.bits / 64, huge_pages);
  if (!storage.ok()) return storage.status();
  return BloomFilter(layout, rounded, expected_count, fp_rate, *std::move(storage));
}

BloomFilter::BloomFilter(Layout layout, const FilterShape& shape, uint64_t expected_count,
                         double fp_rate, std::unique_ptr<BitStorage> storage)
    : layout_(layout),
      bits_(shape.bits),
      hash_count_(shape.hash_count),
      expected_count_(expected_count),
      fp_rate_(fp_rate),
      storage_(std::move(storage)),
      bits_set_(std::make_unique<BitsSetCounter>()) {}

uint64_t* BloomFilter::DirtyWords() { return dirty_ == nullptr ? nullptr : dirty_->words(); }

void BloomFilter::EnableDirtyTracking() {
  if (dirty_ == nullptr) dirty_ = std::make_unique<DirtyBlocks>(storage_->word_count());
}

uint64_t BloomFilter::DirtyBlockCount() const { return dirty_ == nullptr ? 0 : dirty_->Count(); }

void BloomFilter::ClearDirtyBlocks() {
  if (dirty_ != nullptr) dirty_->Clear();
}

BloomFilter::BloomFilter(BloomFilter&&) noexcept = default;
BloomFilter& BloomFilter::operator=(BloomFilter&&) noexcept = default;
BloomFilter::~BloomFilter() = default;

// The string_view calls hash inline rather than through the public calls
// below: fewer instructions per key, so a loop of single calls overlaps more
// of one key's cache miss with the next key's work (hash_inline.h).
void BloomFilter::Add(std::string_view key) { InsertIfNew(HashKeyInline(key)); }
void BloomFilter::Add(const Hash128& h) { InsertIfNew(h); }

bool BloomFilter::MayContain(std::string_view key) const {
  return probes::MayContain(storage_->words(), layout_, bits_, hash_count_, HashKeyInline(key));
}

bool BloomFilter::MayContain(const Hash128& h) const {
  return probes::MayContain(storage_->words(), layout_, bits_, hash_count_, h);
}

bool BloomFilter::InsertIfNew(std::string_view key) { return InsertIfNew(HashKeyInline(key)); }

bool BloomFilter::InsertIfNew(const Hash128& h) {
  const uint64_t turned_on =
      probes::Insert(storage_->words(), layout_, bits_, hash_count_, h, DirtyWords());
  if (turned_on == 0) return false;
  bits_set_->Add(h.high >> 32, turned_on);
  return true;
}

}  // namespace bloom
