// The Sieve's seen-set: a bloom::BloomFilter (policy kWarn) or a
// bloom::ScalableBloomFilter (policy kGrow) behind one small surface, so the
// rest of the Sieve does not branch on the policy.
//
//   absl::StatusOr<SeenFilter> seen = SeenFilter::Create(options);
//   bool is_new = seen->InsertIfNew(bloom::HashKey(url));
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

namespace sieve::internal {

class SeenFilter {
 public:
  static absl::StatusOr<SeenFilter> Create(const SieveOptions& options);
  // Reads a filter written by Save for `policy`.
  static absl::StatusOr<SeenFilter> Load(OverflowPolicy policy, std::istream& in);

  OverflowPolicy policy() const;
  bool InsertIfNew(const bloom::Hash128& hash);
  // InsertIfNew on each key in order (a key repeated in the batch is new only
  // the first time), with the keys' cache lines prefetched ahead of use.
  void InsertIfNewBatch(absl::Span<const std::string_view> keys, absl::Span<bool> out);
  absl::Status Save(std::ostream& out) const;

  uint64_t Capacity() const;
  double TargetFpRate() const;
  double EstimatedCount() const;
  double CurrentFpRate() const;
  double FillRatio() const;
  uint64_t MemoryBytes() const;

 private:
  using Filter = std::variant<bloom::BloomFilter, bloom::ScalableBloomFilter>;
  explicit SeenFilter(Filter filter) : filter_(std::move(filter)) {}

  Filter filter_;
};

}  // namespace sieve::internal

#endif  // SIEVE_SRC_SEEN_FILTER_H_
