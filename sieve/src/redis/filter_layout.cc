#include "filter_layout.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace sieve::internal {
namespace {

constexpr uint64_t kBlockMultiplier = 0x9E3779B97F4A7C15ULL;
constexpr uint64_t kMaxShardBytes = uint64_t{512} << 20;

uint64_t FastRange(uint64_t x, uint64_t range) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(x) * range) >> 64);
}

}  // namespace

absl::StatusOr<FilterLayout> FilterLayout::For(const RedisSieveOptions& options) {
  if (options.shard_bytes == 0 || options.shard_bytes % 64 != 0 ||
      options.shard_bytes > kMaxShardBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shard_bytes must be a multiple of 64 in [64, 512 MiB], got ", options.shard_bytes));
  }
  absl::StatusOr<bloom::FilterShape> shape =
      bloom::ShapeFor(options.layout, options.expected_count, options.fp_rate);
  if (!shape.ok()) return shape.status();
  return FilterLayout(options.layout, shape->bits, shape->hash_count, options.shard_bytes * 8,
                      options.expected_count, options.fp_rate);
}

FilterLayout::FilterLayout(bloom::Layout layout, uint64_t bits, uint32_t k, uint64_t shard_bits,
                           uint64_t capacity, double fp_rate)
    : layout_(layout),
      bits_(bits),
      k_(k),
      shard_bits_(shard_bits),
      capacity_(capacity),
      fp_rate_(fp_rate) {}

void FilterLayout::Positions(const bloom::Hash128& h, std::vector<uint64_t>& out) const {
  out.clear();
  if (layout_ == bloom::Layout::kBlocked) {
    const uint64_t base = FastRange(h.high, bits_ / bloom::kBlockBits) * bloom::kBlockBits;
    uint64_t x = h.low;
    for (uint32_t i = 0; i < k_; ++i) {
      out.push_back(base + (x >> 55));
      x *= kBlockMultiplier;
    }
    return;
  }
  for (uint32_t i = 0; i < k_; ++i) out.push_back(FastRange(h.low + uint64_t{i} * h.high, bits_));
}

std::string FilterLayout::MetaString() const {
  return absl::StrCat(kMetaVersion, " hash=", bloom::kHashId, " seed=", bloom::kHashSeed,
                      " layout=", bloom::LayoutName(layout_), " m=", bits_, " k=", k_,
                      " shard_bits=", shard_bits_);
}

double FilterLayout::EstimatedCount(uint64_t bits_set) const {
  if (bits_set >= bits_) return std::numeric_limits<double>::infinity();
  const double m = static_cast<double>(bits_);
  const double empty = std::log1p(-static_cast<double>(bits_set) / m);
  if (layout_ == bloom::Layout::kClassic) return -(m / k_) * empty;
  const double b = static_cast<double>(bloom::kBlockBits);
  return -(m / b) * empty / (1 - std::pow(1 - 1 / b, k_));
}

double FilterLayout::FpRate(double count) const {
  return bloom::FpRateFor(layout_, bits_, count, k_);
}

}  // namespace sieve::internal
