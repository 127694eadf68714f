// ScalableBloomFilter's statistics: sums (and for the rate, the compound) over
// the stages.
#include <mutex>

#include "bloom/scalable_filter.h"
#include "scalable_stage.h"

namespace bloom {

size_t ScalableBloomFilter::StageCount() const {
  std::shared_lock lock(*mutex_);
  return stages_.size();
}

uint64_t ScalableBloomFilter::Capacity() const {
  std::shared_lock lock(*mutex_);
  uint64_t total = 0;
  for (const auto& s : stages_) total += s->capacity;
  return total;
}

uint64_t ScalableBloomFilter::InsertedCount() const {
  std::shared_lock lock(*mutex_);
  uint64_t total = 0;
  for (const auto& s : stages_) total += s->inserted.load(std::memory_order_relaxed);
  return total;
}

uint64_t ScalableBloomFilter::BitCount() const {
  std::shared_lock lock(*mutex_);
  uint64_t total = 0;
  for (const auto& s : stages_) total += s->filter.BitCount();
  return total;
}

uint64_t ScalableBloomFilter::BitsSet() const {
  std::shared_lock lock(*mutex_);
  uint64_t total = 0;
  for (const auto& s : stages_) total += s->filter.BitsSet();
  return total;
}

double ScalableBloomFilter::FillRatio() const {
  std::shared_lock lock(*mutex_);
  uint64_t set = 0;
  uint64_t bits = 0;
  for (const auto& s : stages_) {
    set += s->filter.BitsSet();
    bits += s->filter.BitCount();
  }
  return static_cast<double>(set) / static_cast<double>(bits);
}

double ScalableBloomFilter::EstimatedCount() const {
  std::shared_lock lock(*mutex_);
  double total = 0;
  for (const auto& s : stages_) total += s->filter.EstimatedCount();
  return total;
}

double ScalableBloomFilter::CurrentFpRate() const {
  std::shared_lock lock(*mutex_);
  double all_say_no = 1.0;
  for (const auto& s : stages_) all_say_no *= 1.0 - s->filter.CurrentFpRate();
  return 1.0 - all_say_no;
}

uint64_t ScalableBloomFilter::MemoryBytes() const {
  std::shared_lock lock(*mutex_);
  uint64_t total = 0;
  for (const auto& s : stages_) total += s->filter.MemoryBytes();
  return total;
}

}  // namespace bloom
