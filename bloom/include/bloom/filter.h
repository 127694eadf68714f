// bloom/filter.h: a Bloom filter, the set that answers "maybe seen" or
// "certainly not seen", sized for n keys at false-positive rate p.
//
//   bloom::FilterOptions options;
//   options.expected_count = 100'000'000;
//   options.fp_rate = 0.01;
//   absl::StatusOr<bloom::BloomFilter> seen = bloom::BloomFilter::Create(options);
//   if (!seen.ok()) return seen.status();
//   if (seen->InsertIfNew(url)) Enqueue(url);  // false: probably seen before
//
// Guarantees: no false negatives (a key once added always answers true); the
// false-positive rate at expected_count keys is at most fp_rate (measured, see
// params.h for the math of each layout). Past expected_count the rate climbs;
// use ScalableBloomFilter when the count is not known.
//
// Threading: every method may be called concurrently with every other, except
// that Merge() and the move operations must not overlap with other calls on
// the same object, and Load/Save see a consistent filter only when no thread
// is adding. There is no lock: each 64-bit word is updated with an atomic
// fetch_or, so adds never lose each other's bits. Exactly what that gives:
//  - A key whose Add/InsertIfNew has returned is seen by MayContain in every
//    thread that synchronizes with the adding thread afterwards.
//  - Two threads calling InsertIfNew(key) at once for a key that was absent:
//    at least one of them gets true, and BOTH may get true (each may be the
//    first to set one of the key's bits). If you need exactly-once, hold your
//    own lock per key stripe around InsertIfNew (the Sieve does).
//  - A MayContain racing with an Add of the same key may answer either way.
//  - The filter orders no other memory: do not use it as a publication flag.
//  - The statistics (BitsSet etc.) are exact when the filter is quiescent and
//    may lag by in-flight adds otherwise.
#ifndef BLOOM_FILTER_H_
#define BLOOM_FILTER_H_

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "bloom/hash.h"
#include "bloom/params.h"

namespace bloom {

struct FilterOptions {
  // n: how many distinct keys the filter is sized for. Required (>= 1).
  uint64_t expected_count = 0;
  // p: the false-positive rate wanted at expected_count keys, in (0, 1).
  // Halving p costs about 1.44 bits per key (classic).
  double fp_rate = 0.01;
  // kBlocked (default): one cache miss per operation; 4% more bits than
  // classic at p = 1%, 16% more at 0.01% (params.h).
  // kClassic: the textbook filter, k cache misses per operation.
  Layout layout = Layout::kBlocked;
  // Ask the kernel for transparent huge pages (madvise(MADV_HUGEPAGE)) when
  // the filter is 2 MiB or larger. With 4 KiB pages a filter of 100+ MB pays a
  // TLB miss on top of the cache miss on every operation. Harmless when THP is
  // disabled.
  bool huge_pages = true;
};

class BitStorage;      // src/bit_storage.h
class BitsSetCounter;  // src/bits_set_counter.h
class DirtyBlocks;     // src/dirty_blocks.h

class BloomFilter {
 public:
  // Validates the options (see ShapeFor in params.h for the errors) and
  // allocates zeroed memory (ResourceExhausted if that fails).
  static absl::StatusOr<BloomFilter> Create(const FilterOptions& options);
  // A filter of an explicit shape (bits rounded up to whole words/blocks).
  // expected_count and fp_rate are recorded for reporting only.
  static absl::StatusOr<BloomFilter> CreateWithShape(Layout layout, const FilterShape& shape,
                                                     uint64_t expected_count, double fp_rate,
                                                     bool huge_pages = true);

  BloomFilter(BloomFilter&&) noexcept;
  BloomFilter& operator=(BloomFilter&&) noexcept;
  BloomFilter(const BloomFilter&) = delete;
  BloomFilter& operator=(const BloomFilter&) = delete;
  ~BloomFilter();

  // --- Single operations --------------------------------------------------
  void Add(std::string_view key);
  void Add(const Hash128& h);
  // True if the key may have been added (false positives at rate ~p); false
  // means it certainly was not.
  bool MayContain(std::string_view key) const;
  bool MayContain(const Hash128& h) const;
  // Adds the key; true if it was (probably) absent, i.e. this call set at
  // least one of its bits. False means "probably seen before" (it may be a
  // false positive, in which case the key is not truly added: its bits were
  // all set already, which is the same thing for a Bloom filter).
  bool InsertIfNew(std::string_view key);
  bool InsertIfNew(const Hash128& h);

  // --- Batched operations -------------------------------------------------
  // Same results as calling the single operation on each key in order, but
  // the keys' cache lines are prefetched ahead of use (a pipeline 32 keys
  // deep for the blocked layout), so many memory misses are in flight at
  // once: ~4x the throughput of single calls on a large filter (README).
  // Same threading rules as the single calls. `out` must have keys.size()
  // elements.
  void AddBatch(absl::Span<const std::string_view> keys);
  void MayContainBatch(absl::Span<const std::string_view> keys, absl::Span<bool> out) const;
  void InsertIfNewBatch(absl::Span<const std::string_view> keys, absl::Span<bool> out);
  void AddBatch(absl::Span<const Hash128> hashes);
  void MayContainBatch(absl::Span<const Hash128> hashes, absl::Span<bool> out) const;
  void InsertIfNewBatch(absl::Span<const Hash128> hashes, absl::Span<bool> out);
  // Starts loading the cache line(s) the key's probes touch (one for the
  // blocked layout, k for the classic one), for a caller that probes many
  // keys with single calls and wants their memory misses to overlap: issue
  // it several keys ahead of the probe. `for_write`: the probe will be an
  // insert. A hint only: no effect on the contents, safe under any thread.
  void Prefetch(const Hash128& h, bool for_write) const;

  // --- Shape and statistics -------------------------------------------------
  uint64_t Capacity() const { return expected_count_; }  // n it was sized for
  double TargetFpRate() const { return fp_rate_; }       // p it was sized for
  uint64_t BitCount() const { return bits_; }            // m
  uint32_t HashCount() const { return hash_count_; }     // k
  Layout layout() const { return layout_; }
  uint64_t MemoryBytes() const { return bits_ / 8; }
  // X, the number of bits set. A maintained counter (sum of 64 striped
  // atomics): cheap enough to call every second on a multi-GB filter.
  uint64_t BitsSet() const;
  double FillRatio() const;  // X / m
  // n^, the number of distinct keys added, from the fill.
  //   classic: n^ = -(m/k) ln(1 - X/m)
  //   blocked: n^ = -(m/B) ln(1 - X/m) / (1 - (1 - 1/B)^k)   (B = 512)
  // The blocked form follows from Poisson block loads: E[X]/m =
  // 1 - exp(-lambda (1 - (1 - 1/B)^k)) with lambda = nB/m. Measured within
  // 0.1% of the truth from 1e3 to 3e6 keys in a 1e6-key filter, fill up to
  // 83% (tests/bloom/stats_test.cc); infinite when every bit is set.
  double EstimatedCount() const;
  // The rate a never-added key sees now: the layout's formula (params.h) at
  // n = EstimatedCount().
  double CurrentFpRate() const;

  // --- Set algebra -----------------------------------------------------------
  // True if `other` has the same layout, m, k and hash id (required by Merge
  // and the estimates below).
  bool IsCompatibleWith(const BloomFilter& other) const;
  // this |= other (bitwise OR): afterwards this contains both key sets.
  // InvalidArgument if not compatible.
  absl::Status Merge(const BloomFilter& other);

  // --- Persistence -------------------------------------------------------------
  // Versioned binary format (src/filter_format.h): magic "CRAWLBLM", version,
  // layout, hash id, m, k, n, p, header checksum, then the bit array streamed
  // in 1 MiB chunks (never copied whole), then its XXH3-64 checksum.
  // Load refuses truncated, corrupted, foreign and newer-version input with a
  // clear status (DataLoss / InvalidArgument / Unimplemented) and checks the
  // declared size before allocating.
  absl::Status Save(std::ostream& out) const;
  static absl::StatusOr<BloomFilter> Load(std::istream& in);
  absl::Status SaveFile(const std::string& path) const;
  static absl::StatusOr<BloomFilter> LoadFile(const std::string& path);

  // --- Incremental persistence: deltas of changed blocks --------------------
  // For checkpoints whose cost follows the change, not the filter's size: a
  // base image (Save, or nothing for a fresh filter) plus the deltas saved
  // since, applied in order, rebuild the filter bit for bit.
  //
  //   filter.EnableDirtyTracking();          // once, before the inserts to track
  //   ... inserts ...
  //   filter.SaveDirtyBlocks(delta_file);    // no insert from here...
  //   filter.ClearDirtyBlocks();             // ...to here (once the file is durable)
  //   // later: BloomFilter::LoadDelta(first) if the chain has no base, else
  //   // Load(base); then ApplyBlocks(delta) for each delta in order.
  //
  // Tracking keeps one bit per 64-byte block of the bit array (m / 512 bits,
  // 2.4 MB for the 1.25 GB filter of n = 1e9, p = 1%), set by an insert (or
  // Merge) that turned a bit on in that block; re-inserts and lookups do not
  // touch it. Blocks are the blocked layout's cache lines; for the classic
  // layout, words [8b, 8b + 8) of the bit array.
  //
  // Threading: EnableDirtyTracking must not overlap other calls. Inserts may
  // run concurrently with each other as always. SaveDirtyBlocks and
  // ClearDirtyBlocks need that no thread inserts from the start of the save to
  // the end of the clear (an insert between them would be lost from the
  // deltas). ApplyBlocks must not overlap other calls.
  //
  // Delta format (src/delta_format.h): magic "CRAWLBLD", version, layout,
  // hash id, k, m, n, p, block count, header checksum, then (u32 block index,
  // 64 bytes) per dirty block in increasing index order, then the XXH3-64 of
  // the records: 64 + 68 * blocks + 8 bytes.
  void EnableDirtyTracking();
  bool DirtyTrackingEnabled() const { return dirty_ != nullptr; }
  // Blocks changed since tracking began or since the last ClearDirtyBlocks.
  uint64_t DirtyBlockCount() const;
  // Writes every dirty block's current 64 bytes as a delta; returns the bytes
  // written. Does not clear the dirty bits: call ClearDirtyBlocks once the
  // delta is durable, so a failed write loses nothing. FailedPrecondition if
  // tracking is off.
  absl::StatusOr<uint64_t> SaveDirtyBlocks(std::ostream& out) const;
  void ClearDirtyBlocks();
  // ORs a delta's blocks into this filter (idempotent). The delta's layout,
  // hash id, k and m must match (InvalidArgument otherwise); corrupted or
  // truncated input gives DataLoss, after which this filter may hold part of
  // the delta and should be discarded. Applied blocks are not marked dirty.
  absl::Status ApplyBlocks(std::istream& in);
  // A zeroed filter of the delta's shape with the delta applied: the first
  // file of a chain that starts from a fresh filter.
  static absl::StatusOr<BloomFilter> LoadDelta(std::istream& in);
  // Size of a delta file of `blocks` blocks.
  static uint64_t DeltaBytes(uint64_t blocks) { return 64 + 68 * blocks + 8; }

 private:
  BloomFilter(Layout layout, const FilterShape& shape, uint64_t expected_count, double fp_rate,
              std::unique_ptr<BitStorage> storage);
  friend class FilterFormat;  // src/filter_format.cc reads and writes the words
  friend class DeltaFormat;   // src/delta_format.cc, the same for deltas
  friend absl::StatusOr<double> EstimateUnionCount(const BloomFilter& a, const BloomFilter& b);

  void RecountBitsSet();
  uint64_t* DirtyWords();  // the dirty bitmap for the probes, or nullptr

  Layout layout_;
  uint64_t bits_;
  uint32_t hash_count_;
  uint64_t expected_count_;
  double fp_rate_;
  std::unique_ptr<BitStorage> storage_;
  std::unique_ptr<BitsSetCounter> bits_set_;
  std::unique_ptr<DirtyBlocks> dirty_;  // null unless EnableDirtyTracking
};

// Estimated number of distinct keys in the union and the intersection of two
// compatible filters' key sets: n^(A OR B), and n^(A) + n^(B) - n^(A OR B)
// (clamped at 0). InvalidArgument if not compatible. The intersection estimate
// is the difference of two estimates, so it is only meaningful when the
// intersection is not tiny next to the union.
absl::StatusOr<double> EstimateUnionCount(const BloomFilter& a, const BloomFilter& b);
absl::StatusOr<double> EstimateIntersectionCount(const BloomFilter& a, const BloomFilter& b);

}  // namespace bloom

#endif  // BLOOM_FILTER_H_
