// The Sieve's seen-set: a bloom::BloomFilter (policy kWarn) or a
// bloom::ScalableBloomFilter (policy kGrow) behind one small surface, so the
// rest of the Sieve does not branch on the policy.
//
//   absl::StatusOr<SeenFilter> seen = SeenFilter::Create(options);
//   bool is_new = seen->InsertIfNew(bloom::HashKey(url));
//
// Policy kWarn filters made by Create track their dirty blocks from the start
// (bloom/filter.h), so the first checkpoint of a fresh filter is a small delta
// (filter_checkpoint.h); FromFixed/FromScalable wrap a loaded filter.
//
// Threading: as the bloom filters: every method may be called concurrently;
// Save sees a consistent filter only when no thread inserts.
#ifndef SIEVE_SRC_SEEN_FILTER_H_
#define SIEVE_SRC_SEEN_FILTER_H_

#include <cstdint>
#include <istream>
#include <ostream>
#include <variant>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "bloom/filter.h"
#include "bloom/hash.h"
#include "bloom/scalable_filter.h"
#include "sieve/options.h"
#include "sieve/stats.h"

namespace sieve::internal {

class SeenFilter {
 public:
  static absl::StatusOr<SeenFilter> Create(const SieveOptions& options);
  // Reads a filter written by Save for `policy`.
  static absl::StatusOr<SeenFilter> Load(OverflowPolicy policy, std::istream& in);
  // Wraps a filter read by filter_checkpoint.cc. `tracked_from_empty`: every
  // bit it holds is in a dirty block (a fresh filter with tracking on).
  static SeenFilter FromFixed(bloom::BloomFilter filter, bool tracked_from_empty);
  static SeenFilter FromScalable(bloom::ScalableBloomFilter filter);

  OverflowPolicy policy() const;
  bool InsertIfNew(const bloom::Hash128& hash);
  bool MayContain(const bloom::Hash128& hash) const;
  // InsertIfNew on each key in order (a key repeated in the batch is new only
  // the first time), with the keys' cache lines prefetched ahead of use.
  void InsertIfNewBatch(absl::Span<const std::string_view> keys, absl::Span<bool> out);
  void InsertIfNewBatch(absl::Span<const bloom::Hash128> hashes, absl::Span<bool> out);
  absl::Status Save(std::ostream& out) const;
  // The policy kWarn filter (for deltas), or nullptr for policy kGrow.
  bloom::BloomFilter* fixed() { return std::get_if<bloom::BloomFilter>(&filter_); }
  // The policy kGrow filter (for deltas), or nullptr for policy kWarn.
  bloom::ScalableBloomFilter* scalable() {
    return std::get_if<bloom::ScalableBloomFilter>(&filter_);
  }
  // True while every bit set since creation is in a dirty block, so the
  // dirty blocks alone (a delta from zero) rebuild the filter.
  bool tracked_from_empty() const { return tracked_from_empty_; }
  void set_tracked_from_empty(bool value) { tracked_from_empty_ = value; }

  // expected_count: what it was sized for (a grown filter's first stage).
  uint64_t InitialCapacity() const;
  uint64_t Capacity() const;
  size_t StageCount() const;  // 1 for kWarn
  // kGrow with filter_memory_max_bytes: the stages allowed are all built and
  // the last is full, so the filter now fills like kWarn.
  bool AtMemoryCap() const;
  double TargetFpRate() const;
  double EstimatedCount() const;
  double CurrentFpRate() const;
  double FillRatio() const;
  uint64_t MemoryBytes() const;
  // The filter's part of SieveStats, every number finite: a saturated filter
  // (n^ infinite) gives estimated_count = nullopt, filter_saturated = true and
  // current_fp_rate = 1.
  void FillStats(SieveStats& stats) const;

 private:
  using Filter = std::variant<bloom::BloomFilter, bloom::ScalableBloomFilter>;
  explicit SeenFilter(Filter filter, bool tracked_from_empty = false, uint32_t max_stages = 0)
      : filter_(std::move(filter)),
        tracked_from_empty_(tracked_from_empty),
        max_stages_(max_stages) {}

  Filter filter_;
  bool tracked_from_empty_;
  uint32_t max_stages_;  // stages allowed by filter_memory_max_bytes; 0 = no cap
};

}  // namespace sieve::internal

#endif  // SIEVE_SRC_SEEN_FILTER_H_
