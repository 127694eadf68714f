// HostLimitCounts: URLs accepted per authority, for --max-pages-per-host, in
// bounded memory. An authority is keyed by a stable 64-bit hash of its name
// (FNV-1a; two of 1e6 authorities share one with probability ~3e-8), so an
// entry costs ~17 bytes in a flat_hash_map slot (8-byte key, 4-byte count,
// padding, control byte) at 50-88% load: 20-35 bytes per authority.
//
// Bound: at most kMaxExact authorities are counted exactly (~36 MB at the
// cap). Authorities beyond it share kSharedBuckets counters by hash: a shared
// counter sums the URLs of every authority in its bucket, so such an
// authority may be refused before its limit (never let past it). 1.8e6
// authorities is more than most crawls meet; a web-scale one degrades to
// "a late host may get fewer pages than the limit", never to more memory.
//
//   HostLimitCounts counts;
//   if (counts.Get("http://a") < limit) counts.Increment("http://a");
//
// Threading: not thread-safe; the Frontier calls it under its lock.
#ifndef CRAWLER_SRC_FRONTIER_HOST_LIMIT_COUNTS_H_
#define CRAWLER_SRC_FRONTIER_HOST_LIMIT_COUNTS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace crawler {

// A stable (same in every run and build) 64-bit hash of an authority, for
// what a checkpoint keeps by hash.
uint64_t StableAuthorityHash(std::string_view authority);

class HostLimitCounts {
 public:
  // 7/8 of 2^21: the largest size before the table grows to 2^22 slots.
  static constexpr size_t kMaxExact = (size_t{1} << 21) / 8 * 7;
  static constexpr size_t kSharedBuckets = size_t{1} << 16;  // 256 KiB, allocated when needed

  uint64_t Get(std::string_view authority) const;
  void Increment(std::string_view authority);

  size_t exact() const { return exact_.size(); }
  // Bytes held (the map's slots and control bytes, the shared counters).
  size_t MemoryBytes() const;

  // For checkpoints: exact counts by hash, and non-zero shared buckets.
  std::vector<std::pair<uint64_t, uint64_t>> ExactCounts() const;
  std::vector<std::pair<uint64_t, uint64_t>> SharedCounts() const;
  void RestoreExact(uint64_t hash, uint64_t count);
  void RestoreShared(size_t bucket, uint64_t count);  // bucket < kSharedBuckets

 private:
  uint32_t* SharedCounter(uint64_t hash);

  absl::flat_hash_map<uint64_t, uint32_t> exact_;
  std::unique_ptr<uint32_t[]> shared_;  // kSharedBuckets counters, or null
};

}  // namespace crawler

#endif  // CRAWLER_SRC_FRONTIER_HOST_LIMIT_COUNTS_H_
