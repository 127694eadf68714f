// bloom/scalable_filter.h: a Bloom filter that grows when more keys arrive
// than it was sized for, keeping its compound false-positive rate under p
// however far the count goes (Almeida, Baquero, Preguica, Hutchison:
// "Scalable Bloom Filters", Information Processing Letters 101, 2007).
//
//   bloom::FilterOptions options;
//   options.expected_count = 1'000'000;  // initial capacity, a guess
//   options.fp_rate = 0.01;              // bound on the compound rate
//   absl::StatusOr<bloom::ScalableBloomFilter> seen =
//       bloom::ScalableBloomFilter::Create(options);
//   if (seen->InsertIfNew(url)) Enqueue(url);
//
// Math: stage i (i = 0, 1, ...) is a BloomFilter of capacity n0 * g^i at rate
// p_i = p0 * r^i, with g = 2 (growth) and r = 0.5 (tightening ratio), and
// p0 = p (1 - r). A never-added key is a false positive if any stage says
// yes: rate <= 1 - prod(1 - p_i) <= sum p_i = p0 / (1 - r) = p. A new stage is
// opened when a new key arrives and the last one is full: it has received its
// capacity of new keys, or its set bits already put its rate at p_i (the bits
// of n keys vary by chance; closing on them keeps the reported rate under p,
// not only its expectation). Concurrent inserts overfill a stage by at most
// the number of threads. Memory
// stays within ~2x of a filter sized right from the start (each stage needs
// log2(1/r) = 1 more bit per key than the previous one's rate).
//
// Threading: every method may be called concurrently. Lookups and inserts
// hold a shared (reader) lock; opening a new stage takes the exclusive lock
// for the time of one allocation. InsertIfNew has the same two-thread
// guarantee as BloomFilter (at least one of two racing inserts of the same
// new key gets true; both may). Save sees a consistent filter only when no
// thread is inserting.
#ifndef BLOOM_SCALABLE_FILTER_H_
#define BLOOM_SCALABLE_FILTER_H_

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "bloom/filter.h"
#include "bloom/hash.h"

namespace bloom {

struct GrowthOptions {
  double growth_factor = 2.0;     // g: stage i+1 holds g times stage i's keys; >= 1
  double tightening_ratio = 0.5;  // r: stage i+1's rate is r times stage i's; in (0, 1)
  // After this many stages no new stage is opened: the last keeps filling and
  // the rate bound no longer holds. With g = 2, 40 stages hold n0 * 2^40 keys.
  uint32_t max_stages = 40;
};

class ScalableBloomFilter {
 public:
  // options.expected_count is the first stage's capacity; options.fp_rate the
  // bound on the compound rate. Errors as BloomFilter::Create, plus
  // InvalidArgument for bad growth options.
  static absl::StatusOr<ScalableBloomFilter> Create(const FilterOptions& options,
                                                    const GrowthOptions& growth = {});

  ScalableBloomFilter(ScalableBloomFilter&&) noexcept;
  ScalableBloomFilter& operator=(ScalableBloomFilter&&) noexcept;
  ScalableBloomFilter(const ScalableBloomFilter&) = delete;
  ScalableBloomFilter& operator=(const ScalableBloomFilter&) = delete;
  ~ScalableBloomFilter();

  void Add(std::string_view key) { InsertIfNew(key); }
  void Add(const Hash128& h) { InsertIfNew(h); }
  bool MayContain(std::string_view key) const;
  bool MayContain(const Hash128& h) const;
  bool InsertIfNew(std::string_view key);  // true = was (probably) absent, now added
  bool InsertIfNew(const Hash128& h);
  void MayContainBatch(absl::Span<const std::string_view> keys, absl::Span<bool> out) const;
  void InsertIfNewBatch(absl::Span<const std::string_view> keys, absl::Span<bool> out);

  // --- Shape and statistics (sums over the stages) -------------------------
  uint64_t Capacity() const;  // keys the current stages hold at their rates
  uint64_t InitialCapacity() const { return options_.expected_count; }
  double TargetFpRate() const { return options_.fp_rate; }
  size_t StageCount() const;
  uint64_t InsertedCount() const;  // InsertIfNew calls that returned true
  uint64_t BitCount() const;
  uint64_t BitsSet() const;
  double FillRatio() const;       // BitsSet / BitCount
  double EstimatedCount() const;  // sum of the stages' estimates
  // 1 - prod(1 - stage_i.CurrentFpRate()): the rate a never-added key sees now.
  double CurrentFpRate() const;
  uint64_t MemoryBytes() const;
  Layout layout() const { return options_.layout; }

  // --- Persistence -------------------------------------------------------------
  // Magic "CRAWLSBF", version, options, stage count and per-stage inserted
  // counts (with a header checksum), then each stage in BloomFilter's format.
  absl::Status Save(std::ostream& out) const;
  static absl::StatusOr<ScalableBloomFilter> Load(std::istream& in);
  absl::Status SaveFile(const std::string& path) const;
  static absl::StatusOr<ScalableBloomFilter> LoadFile(const std::string& path);

 private:
  struct Stage;
  ScalableBloomFilter(const FilterOptions& options, const GrowthOptions& growth);
  absl::Status AddStage();                          // needs the exclusive lock
  bool AnyStageMayContain(const Hash128& h) const;  // needs a lock
  bool GrowIfFull(size_t stage_index);

  FilterOptions options_;
  GrowthOptions growth_;
  std::unique_ptr<std::shared_mutex> mutex_;
  std::vector<std::unique_ptr<Stage>> stages_;  // guarded by *mutex_
};

}  // namespace bloom

#endif  // BLOOM_SCALABLE_FILTER_H_
