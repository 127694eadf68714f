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
#include <utility>
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
  // The same answers as InsertIfNew on each key in order (growth included),
  // with each key's lines in every stage prefetched a few keys ahead of its
  // probe, so that a large filter's memory misses overlap; the shared lock is
  // taken once per run of keys, not once per key. `out` must have as many
  // elements as the keys.
  void InsertIfNewBatch(absl::Span<const std::string_view> keys, absl::Span<bool> out);
  void InsertIfNewBatch(absl::Span<const Hash128> hashes, absl::Span<bool> out);

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

  // --- Incremental persistence: per-stage deltas of changed blocks ---------
  // As BloomFilter's (bloom/filter.h, "Incremental persistence"), stage by
  // stage: a base image (Save, or nothing for a fresh filter) plus the deltas
  // saved since, applied in order, rebuild the filter bit for bit and counter
  // for counter, stages opened in between included.
  //
  //   filter.EnableDirtyTracking();          // once: every stage, and each opened later
  //   ... inserts ...
  //   filter.SaveDirtyBlocks(delta_file);    // no insert from here...
  //   filter.ClearDirtyBlocks();             // ...to here (once the file is durable)
  //   // later: LoadDelta(first) if the chain has no base, else Load(base);
  //   // then ApplyDelta(delta) for each delta in order.
  //
  // Delta format: Save's header (options, growth, the stage table with each
  // stage's inserted count, header checksum) under magic "CRAWLSBD", then each
  // stage's BloomFilter delta ("CRAWLBLD"): DeltaBytes(stages, blocks) bytes.
  // A stage opened since the last save is a delta from zero.
  //
  // Threading: as BloomFilter's: SaveDirtyBlocks and ClearDirtyBlocks need
  // that no thread inserts from the start of the save to the end of the
  // clear; EnableDirtyTracking and ApplyDelta must not overlap other calls.
  void EnableDirtyTracking();
  bool DirtyTrackingEnabled() const { return track_dirty_; }
  uint64_t DirtyBlockCount() const;  // over every stage
  // Bytes of a delta of `stages` stages with `blocks` dirty blocks in all.
  static uint64_t DeltaBytes(uint64_t stages, uint64_t blocks);
  uint64_t DeltaBytes() const;  // of a delta saved now
  // Bytes of a full image (Save) now.
  uint64_t ImageBytes() const;
  absl::StatusOr<uint64_t> SaveDirtyBlocks(std::ostream& out) const;
  void ClearDirtyBlocks();
  // Applies a delta saved by a filter of the same options: opens the stages
  // it has that this one lacks, ORs each stage's blocks in and sets each
  // stage's inserted count. InvalidArgument if the options differ or the
  // delta has fewer stages; DataLoss for corrupted or truncated input (this
  // filter may then hold part of the delta: discard it).
  absl::Status ApplyDelta(std::istream& in);
  // A fresh filter of the delta's options with the delta applied: the first
  // file of a chain that starts from an empty filter.
  static absl::StatusOr<ScalableBloomFilter> LoadDelta(std::istream& in);

 private:
  struct Stage;
  // Save's header, shared with the delta format (scalable_format.cc).
  struct Header {
    FilterOptions options;
    GrowthOptions growth;
    std::vector<std::pair<uint64_t, uint64_t>> stages;  // capacity, inserted
  };
  std::string EncodeHeader(const char (&magic)[8]) const;  // needs a lock
  static absl::StatusOr<Header> DecodeHeader(std::istream& in, const char (&magic)[8]);
  // ApplyDelta after its header was read.
  absl::Status ApplyDecoded(const Header& delta, std::istream& in);
  ScalableBloomFilter(const FilterOptions& options, const GrowthOptions& growth);
  absl::Status AddStage();                          // needs the exclusive lock
  bool AnyStageMayContain(const Hash128& h) const;  // needs a lock
  // InsertIfNew's step under the shared lock: kFull when the last stage is
  // full and may grow (not after `growth_failed`); *full_stage is then its
  // index, for GrowIfFull.
  enum class Insertion { kNew, kSeen, kFull };
  Insertion TryInsertLocked(const Hash128& h, bool growth_failed, size_t* full_stage);
  void PrefetchStages(const Hash128& h) const;  // needs a lock
  bool GrowIfFull(size_t stage_index);

  FilterOptions options_;
  GrowthOptions growth_;
  bool track_dirty_ = false;  // stages opened later track their blocks too
  std::unique_ptr<std::shared_mutex> mutex_;
  std::vector<std::unique_ptr<Stage>> stages_;  // guarded by *mutex_
};

}  // namespace bloom

#endif  // BLOOM_SCALABLE_FILTER_H_
