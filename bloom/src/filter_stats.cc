// BloomFilter's statistics and set algebra (merge, union and intersection
// estimates).
#include <algorithm>
#include <bit>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "bit_storage.h"
#include "bits_set_counter.h"
#include "bloom/filter.h"
#include "dirty_blocks.h"
#include "fill_estimator.h"
#include "probes.h"

namespace bloom {
namespace {

uint64_t CountUnionBits(const uint64_t* a, const uint64_t* b, uint64_t word_count) {
  uint64_t total = 0;
  for (uint64_t i = 0; i < word_count; ++i) {
    total += std::popcount(probes::LoadWord(a + i) | probes::LoadWord(b + i));
  }
  return total;
}

absl::Status Incompatible(const BloomFilter& a, const BloomFilter& b) {
  return absl::InvalidArgumentError(
      absl::StrCat("bloom: filters are not compatible (layout ", LayoutName(a.layout()), "/",
                   LayoutName(b.layout()), ", bits ", a.BitCount(), "/", b.BitCount(), ", hashes ",
                   a.HashCount(), "/", b.HashCount(), ")"));
}

}  // namespace

uint64_t BloomFilter::BitsSet() const { return bits_set_->Total(); }

double BloomFilter::FillRatio() const {
  return static_cast<double>(BitsSet()) / static_cast<double>(bits_);
}

double BloomFilter::EstimatedCount() const {
  return CountFromFill(layout_, bits_, hash_count_, BitsSet());
}

double BloomFilter::CurrentFpRate() const {
  const double n = EstimatedCount();
  if (n == std::numeric_limits<double>::infinity()) return 1.0;
  return FpRateFor(layout_, bits_, n, hash_count_);
}

bool BloomFilter::IsCompatibleWith(const BloomFilter& other) const {
  // One hash id per build of this library (kHashId), so equal layout, m and k
  // suffice; a loaded filter with another hash id is refused at load time.
  return layout_ == other.layout_ && bits_ == other.bits_ && hash_count_ == other.hash_count_;
}

void BloomFilter::RecountBitsSet() {
  const uint64_t* words = storage_->words();
  uint64_t total = 0;
  for (uint64_t i = 0; i < storage_->word_count(); ++i) total += std::popcount(words[i]);
  bits_set_->Reset(total);
}

absl::Status BloomFilter::Merge(const BloomFilter& other) {
  if (!IsCompatibleWith(other)) return Incompatible(*this, other);
  if (&other == this) return absl::OkStatus();
  uint64_t* words = storage_->words();
  const uint64_t* theirs = other.storage_->words();
  uint64_t turned_on = 0;
  for (uint64_t i = 0; i < storage_->word_count(); ++i) {
    const uint64_t mask = probes::LoadWord(theirs + i);
    if (mask == 0) continue;
    const uint64_t set = probes::SetBits(words + i, mask);
    if (set != 0 && dirty_ != nullptr) MarkDirtyBlock(dirty_->words(), i / kWordsPerDirtyBlock);
    turned_on += set;
  }
  bits_set_->Add(0, turned_on);
  return absl::OkStatus();
}

absl::StatusOr<double> EstimateUnionCount(const BloomFilter& a, const BloomFilter& b) {
  if (!a.IsCompatibleWith(b)) return Incompatible(a, b);
  const uint64_t union_bits =
      CountUnionBits(a.storage_->words(), b.storage_->words(), a.BitCount() / 64);
  return CountFromFill(a.layout(), a.BitCount(), a.HashCount(), union_bits);
}

absl::StatusOr<double> EstimateIntersectionCount(const BloomFilter& a, const BloomFilter& b) {
  absl::StatusOr<double> union_count = EstimateUnionCount(a, b);
  if (!union_count.ok()) return union_count.status();
  return std::max(0.0, a.EstimatedCount() + b.EstimatedCount() - *union_count);
}

}  // namespace bloom
