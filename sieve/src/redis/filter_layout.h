// Where a URL's bits are in Redis: the filter's shape (m, k from bloom's
// sizing), the bit positions of a URL (bloom's hash and probe derivation, so
// any process, and an in-memory bloom::BloomFilter of the same shape, agree),
// and how the m bits are cut into shard keys.
//
//   absl::StatusOr<FilterLayout> layout = FilterLayout::For(options);
//   for (uint64_t bit : layout->Positions(bloom::HashKey(url))) ...
//
// Probe derivation (bloom/src/probes.h, frozen by bloom::kHashId = 1):
//  - classic: position_i = FastRange(h.low + i * h.high, m), i = 0..k-1
//  - blocked: block = FastRange(h.high, m / 512); bit_i = top 9 bits of
//    h.low * C^i, C = 0x9E3779B97F4A7C15; position = block * 512 + bit_i
// tests/sieve/redis/redis_sieve_test.cc (BitsAreBlooms...) checks these
// against a bloom::BloomFilter of the same shape, in both layouts.
//
// Threading: immutable after For; safe from any thread.
#ifndef SIEVE_SRC_REDIS_FILTER_LAYOUT_H_
#define SIEVE_SRC_REDIS_FILTER_LAYOUT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "bloom/hash.h"
#include "bloom/params.h"
#include "sieve/redis_sieve.h"

namespace sieve::internal {

class FilterLayout {
 public:
  // InvalidArgument for a bad n, p or shard size.
  static absl::StatusOr<FilterLayout> For(const RedisSieveOptions& options);
  FilterLayout(bloom::Layout layout, uint64_t bits, uint32_t k, uint64_t shard_bits,
               uint64_t capacity, double fp_rate);

  // The k bit positions of a key, in [0, m).
  void Positions(const bloom::Hash128& h, std::vector<uint64_t>& out) const;
  uint64_t ShardOf(uint64_t position) const { return position / shard_bits_; }
  uint64_t OffsetInShard(uint64_t position) const { return position % shard_bits_; }
  uint64_t ShardCount() const { return (bits_ + shard_bits_ - 1) / shard_bits_; }

  // The parameters as stored in NAME:meta, e.g.
  // "v4 hash=1 seed=7161... layout=blocked m=95850496 k=6 shard_bits=4294967296".
  // (n and p are not in it: they only choose m and k.) v2: per-host queues
  // (NAME:q:H); v3: queue elements may carry a payload; v4: a host queue's
  // elements are packed batches of URLs (queue_batch.h). A frontier of
  // another version is refused at Connect (DataLoss naming NAME:meta and
  // the version found), not misread.
  static constexpr char kMetaVersion[] = "v4";
  std::string MetaString() const;

  // n^ from X bits set (bloom/filter.h, EstimatedCount): classic
  // -(m/k) ln(1 - X/m); blocked -(m/B) ln(1 - X/m) / (1 - (1 - 1/B)^k).
  double EstimatedCount(uint64_t bits_set) const;
  double FpRate(double count) const;

  bloom::Layout layout() const { return layout_; }
  uint64_t bits() const { return bits_; }
  uint32_t hash_count() const { return k_; }
  uint64_t capacity() const { return capacity_; }
  double target_fp_rate() const { return fp_rate_; }

 private:
  bloom::Layout layout_;
  uint64_t bits_;
  uint32_t k_;
  uint64_t shard_bits_;
  uint64_t capacity_;
  double fp_rate_;
};

}  // namespace sieve::internal

#endif  // SIEVE_SRC_REDIS_FILTER_LAYOUT_H_
