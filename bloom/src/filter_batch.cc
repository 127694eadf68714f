// BloomFilter's batched operations: software pipelines. The cache line(s) a
// key will touch are prefetched well before it is probed, so hashing (CPU
// work) overlaps the memory misses of the keys ahead of it and many misses
// are in flight at once (memory-level parallelism). Pre-hashed keys run
// through a ring; string keys on the blocked layout through double-buffered
// groups (hash and prefetch group g + 1, then probe group g). See pipeline.h
// for why each.
#include <algorithm>

#include "bit_storage.h"
#include "bits_set_counter.h"
#include "bloom/filter.h"
#include "hash_inline.h"
#include "pipeline.h"
#include "probes.h"

namespace bloom {
namespace {

// Pipeline depths, measured at n = 1e8 (bench/bloom): the blocked layout
// prefetches one line per key and needs ~latency / time-per-key = 190 ns /
// ~15 ns (pre-hashed keys) lines in flight; depth 32 beat 16 and 64 by 10-20%
// for pre-hashed keys. The classic layout prefetches k lines per key, so a few
// keys already fill the core's ~24 miss buffers.
constexpr size_t kBlockedDepth = 32;
constexpr size_t kClassicDepth = 4;
// String keys, blocked layout: groups of 8, 16, 32 and 64 keys measured within
// 3% of each other (17.7-18.0 ns per negative lookup at n = 1e8); 32 keeps a
// key's prefetch ~400 ns ahead of its probe, twice the miss latency.
constexpr size_t kBlockedStringGroup = 32;

// The pipeline's prefetch steps: the line(s) a key's probes will touch.
// Named functors with an always-inlined call, not lambdas: at -O2, GCC 12 kept
// the lambdas out of line (its early inliner allows less growth than at -O3),
// found them pure (a prefetch counts as no side effect) and deleted every call,
// so the -O2 build ran the batches with no prefetch at all (probes.h).
class BlockedPrefetch {
 public:
  BlockedPrefetch(const uint64_t* words, uint64_t bits, bool for_write)
      : words_(words), blocks_(bits / kBlockBits), for_write_(for_write) {}

  [[gnu::always_inline]] void operator()(const Hash128& h) const {
    const uint64_t* line = probes::BlockWords(words_, h, blocks_);
    for_write_ ? probes::PrefetchWrite(line) : probes::PrefetchRead(line);
  }

 private:
  const uint64_t* words_;
  uint64_t blocks_;
  bool for_write_;
};

class ClassicPrefetch {
 public:
  ClassicPrefetch(const uint64_t* words, uint64_t bits, uint32_t k, bool for_write)
      : words_(words), bits_(bits), k_(k), for_write_(for_write) {}

  [[gnu::always_inline]] void operator()(const Hash128& h) const {
    for (uint32_t i = 0; i < k_; ++i) {
      const uint64_t* word = words_ + (probes::ClassicPosition(h, i, bits_) >> 6);
      for_write_ ? probes::PrefetchWrite(word) : probes::PrefetchRead(word);
    }
  }

 private:
  const uint64_t* words_;
  uint64_t bits_;
  uint32_t k_;
  bool for_write_;
};

// Runs op(i, hash) for i in [0, count) in order, with hash_at(i + depth) and
// its prefetch done `depth` keys ahead. One instantiation per layout, so the
// per-key work has no layout branch. (The op's probe still tests the layout:
// a perfectly predicted branch.)
template <typename HashAt, typename Op>
void RunPipelined(Layout layout, uint64_t bits, uint32_t k, const uint64_t* words, bool for_write,
                  size_t count, HashAt hash_at, Op op) {
  if (layout == Layout::kBlocked) {
    pipeline::Run<kBlockedDepth>(count, hash_at, BlockedPrefetch(words, bits, for_write), op);
    return;
  }
  pipeline::Run<kClassicDepth>(count, hash_at, ClassicPrefetch(words, bits, k, for_write), op);
}

// The string keys' hashes for the classic layout's ring, computed kChunk at a
// time in a tight loop just before the ring needs them. Measured at n = 1e8:
// hashing inside the ring's step (one key per step) made string-key batches
// ~2x slower (44 vs 24 ns per blocked negative lookup; hashing alone was
// 7.5 ns). In the tight loop the hashes of neighbouring keys overlap each
// other; in the ring's step each one sits between a prefetch and a probe.
// (The blocked layout's string keys go through pipeline::RunInGroups, which
// keeps the tight hash loop and also prefetches inside it.)
class ChunkedHashes {
 public:
  explicit ChunkedHashes(absl::Span<const std::string_view> keys) : keys_(keys) {}

  // Keys must be asked for in increasing order (RunPipelined does).
  const Hash128& operator()(size_t i) {
    if (i >= end_) Refill(i);
    return hashes_[i - begin_];
  }

 private:
  static constexpr size_t kChunk = 64;

  // Flattened so that XXH3's short-key path is inlined here at -O2 as it is
  // at -O3 (-O2 called it once per key; keys over 128 bytes still call out).
  [[gnu::flatten]] void Refill(size_t first) {
    begin_ = first;
    end_ = std::min(first + kChunk, keys_.size());
    for (size_t j = begin_; j < end_; ++j) hashes_[j - begin_] = HashKeyInline(keys_[j]);
  }

  absl::Span<const std::string_view> keys_;
  size_t begin_ = 0;
  size_t end_ = 0;
  Hash128 hashes_[kChunk];
};

// Runs op(i, hash of keys[i]) for i in [0, count) in order, hashing and
// prefetching ahead: in groups for the blocked layout, through the ring fed by
// ChunkedHashes for the classic one (its k prefetches per key would overflow
// the miss buffers in a group's burst of prefetches). Always inlined, so the
// classic ring compiles inside each batch method as it did before the groups
// (out of line, its step reloaded the op's captures from the stack).
template <typename Op>
[[gnu::always_inline]] inline void RunStringKeys(Layout layout, uint64_t bits, uint32_t k,
                                                 const uint64_t* words, bool for_write,
                                                 absl::Span<const std::string_view> keys,
                                                 size_t count, Op op) {
  if (layout == Layout::kBlocked) {
    const std::string_view* key_data = keys.data();
    pipeline::RunInGroups<kBlockedStringGroup>(
        count, [key_data](size_t i) { return HashKeyInline(key_data[i]); },
        BlockedPrefetch(words, bits, for_write), op);
    return;
  }
  RunPipelined(layout, bits, k, words, for_write, count, ChunkedHashes(keys), op);
}

// InsertIfNew(h) without the call: sets h's bits. The bits it turned on go
// to the shared counter once, when the batch ends (one locked add per batch,
// not one per new key; Stats() lags a batch still running).
class BatchInserter {
 public:
  BatchInserter(uint64_t* words, Layout layout, uint64_t bits, uint32_t k, BitsSetCounter* bits_set,
                uint64_t* dirty)
      : words_(words), layout_(layout), bits_(bits), k_(k), bits_set_(bits_set), dirty_(dirty) {}
  BatchInserter(const BatchInserter&) = delete;
  BatchInserter& operator=(const BatchInserter&) = delete;
  ~BatchInserter() {
    if (turned_on_ != 0) bits_set_->Add(stripe_hint_, turned_on_);
  }

  bool operator()(const Hash128& h) {
    const uint64_t turned_on = probes::Insert(words_, layout_, bits_, k_, h, dirty_);
    turned_on_ += turned_on;
    stripe_hint_ = h.high >> 32;
    return turned_on != 0;
  }

 private:
  uint64_t* words_;
  Layout layout_;
  uint64_t bits_;
  uint32_t k_;
  BitsSetCounter* bits_set_;
  uint64_t* dirty_;  // the DirtyBlocks bitmap, or nullptr when not tracking
  uint64_t turned_on_ = 0;
  uint64_t stripe_hint_ = 0;
};

}  // namespace

// The ops below go straight to the probes (not through the public single-key
// calls) to keep the per-key instruction count low: fewer instructions per
// key let the core's reorder window reach further ahead.
void BloomFilter::MayContainBatch(absl::Span<const std::string_view> keys,
                                  absl::Span<bool> out) const {
  const uint64_t* words = storage_->words();
  RunStringKeys(layout_, bits_, hash_count_, words, false, keys, std::min(keys.size(), out.size()),
                [&](size_t i, const Hash128& h) {
                  out[i] = probes::MayContain(words, layout_, bits_, hash_count_, h);
                });
}

void BloomFilter::MayContainBatch(absl::Span<const Hash128> hashes, absl::Span<bool> out) const {
  const uint64_t* words = storage_->words();
  RunPipelined(
      layout_, bits_, hash_count_, words, false, std::min(hashes.size(), out.size()),
      [&](size_t i) { return hashes[i]; },
      [&](size_t i, const Hash128& h) {
        out[i] = probes::MayContain(words, layout_, bits_, hash_count_, h);
      });
}

void BloomFilter::InsertIfNewBatch(absl::Span<const std::string_view> keys, absl::Span<bool> out) {
  BatchInserter insert(storage_->words(), layout_, bits_, hash_count_, bits_set_.get(),
                       DirtyWords());
  RunStringKeys(layout_, bits_, hash_count_, storage_->words(), true, keys,
                std::min(keys.size(), out.size()),
                [&](size_t i, const Hash128& h) { out[i] = insert(h); });
}

void BloomFilter::InsertIfNewBatch(absl::Span<const Hash128> hashes, absl::Span<bool> out) {
  BatchInserter insert(storage_->words(), layout_, bits_, hash_count_, bits_set_.get(),
                       DirtyWords());
  RunPipelined(
      layout_, bits_, hash_count_, storage_->words(), true, std::min(hashes.size(), out.size()),
      [&](size_t i) { return hashes[i]; }, [&](size_t i, const Hash128& h) { out[i] = insert(h); });
}

void BloomFilter::Prefetch(const Hash128& h, bool for_write) const {
  const uint64_t* words = storage_->words();
  if (layout_ == Layout::kBlocked) {
    BlockedPrefetch(words, bits_, for_write)(h);
  } else {
    ClassicPrefetch(words, bits_, hash_count_, for_write)(h);
  }
}

void BloomFilter::AddBatch(absl::Span<const std::string_view> keys) {
  BatchInserter insert(storage_->words(), layout_, bits_, hash_count_, bits_set_.get(),
                       DirtyWords());
  RunStringKeys(layout_, bits_, hash_count_, storage_->words(), true, keys, keys.size(),
                [&](size_t, const Hash128& h) { insert(h); });
}

void BloomFilter::AddBatch(absl::Span<const Hash128> hashes) {
  BatchInserter insert(storage_->words(), layout_, bits_, hash_count_, bits_set_.get(),
                       DirtyWords());
  RunPipelined(
      layout_, bits_, hash_count_, storage_->words(), true, hashes.size(),
      [&](size_t i) { return hashes[i]; }, [&](size_t, const Hash128& h) { insert(h); });
}

}  // namespace bloom
