// BloomFilter's batched operations: hash a group of keys, prefetch the cache
// lines they will touch, then operate. While the first key's line arrives the
// others are already in flight, so a batch pays about one memory latency per
// group instead of one per key (memory-level parallelism).
#include <algorithm>

#include "bit_storage.h"
#include "bloom/filter.h"
#include "probes.h"

namespace bloom {
namespace {

// Enough misses in flight to cover the ~10-12 line fill buffers per core; the
// classic layout prefetches k lines per key, so it takes smaller groups.
constexpr size_t kBlockedGroup = 16;
constexpr size_t kClassicGroup = 4;

void Prefetch(const uint64_t* words, Layout layout, uint64_t bits, uint32_t k, const Hash128& h,
              bool for_write) {
  auto fetch = for_write ? probes::PrefetchWrite : probes::PrefetchRead;
  if (layout == Layout::kBlocked) {
    fetch(probes::BlockWords(words, h, bits / kBlockBits));
    return;
  }
  for (uint32_t i = 0; i < k; ++i) fetch(words + (probes::ClassicPosition(h, i, bits) >> 6));
}

size_t GroupSize(Layout layout) {
  return layout == Layout::kBlocked ? kBlockedGroup : kClassicGroup;
}

// Runs op(i, hash) over keys in groups, each group prefetched first.
template <typename KeyAt, typename Op>
void ForEachPrefetched(size_t count, Layout layout, uint64_t bits, uint32_t k,
                       const uint64_t* words, bool for_write, KeyAt key_at, Op op) {
  Hash128 hashes[kBlockedGroup];
  const size_t group = GroupSize(layout);
  for (size_t start = 0; start < count; start += group) {
    const size_t size = std::min(group, count - start);
    for (size_t j = 0; j < size; ++j) {
      hashes[j] = key_at(start + j);
      Prefetch(words, layout, bits, k, hashes[j], for_write);
    }
    for (size_t j = 0; j < size; ++j) op(start + j, hashes[j]);
  }
}

}  // namespace

void BloomFilter::AddBatch(absl::Span<const std::string_view> keys) {
  ForEachPrefetched(
      keys.size(), layout_, bits_, hash_count_, storage_->words(), true,
      [&](size_t i) { return HashKey(keys[i]); }, [&](size_t, const Hash128& h) { Add(h); });
}

void BloomFilter::MayContainBatch(absl::Span<const std::string_view> keys,
                                  absl::Span<bool> out) const {
  const uint64_t* words = storage_->words();
  ForEachPrefetched(
      std::min(keys.size(), out.size()), layout_, bits_, hash_count_, storage_->words(), false,
      [&](size_t i) { return HashKey(keys[i]); },
      [&](size_t i, const Hash128& h) {
        out[i] = probes::MayContain(words, layout_, bits_, hash_count_, h);
      });
}

void BloomFilter::InsertIfNewBatch(absl::Span<const std::string_view> keys, absl::Span<bool> out) {
  ForEachPrefetched(
      std::min(keys.size(), out.size()), layout_, bits_, hash_count_, storage_->words(), true,
      [&](size_t i) { return HashKey(keys[i]); },
      [&](size_t i, const Hash128& h) { out[i] = InsertIfNew(h); });
}

void BloomFilter::AddBatch(absl::Span<const Hash128> hashes) {
  ForEachPrefetched(
      hashes.size(), layout_, bits_, hash_count_, storage_->words(), true,
      [&](size_t i) { return hashes[i]; }, [&](size_t, const Hash128& h) { Add(h); });
}

void BloomFilter::MayContainBatch(absl::Span<const Hash128> hashes, absl::Span<bool> out) const {
  const uint64_t* words = storage_->words();
  ForEachPrefetched(
      std::min(hashes.size(), out.size()), layout_, bits_, hash_count_, storage_->words(), false,
      [&](size_t i) { return hashes[i]; },
      [&](size_t i, const Hash128& h) {
        out[i] = probes::MayContain(words, layout_, bits_, hash_count_, h);
      });
}

void BloomFilter::InsertIfNewBatch(absl::Span<const Hash128> hashes, absl::Span<bool> out) {
  ForEachPrefetched(
      std::min(hashes.size(), out.size()), layout_, bits_, hash_count_, storage_->words(), true,
      [&](size_t i) { return hashes[i]; },
      [&](size_t i, const Hash128& h) { out[i] = InsertIfNew(h); });
}

}  // namespace bloom
