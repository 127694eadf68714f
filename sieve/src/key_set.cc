#include "key_set.h"

#include <algorithm>

namespace sieve::internal {
namespace {

constexpr size_t kMinCapacity = 16;

// The smallest power-of-two capacity that holds `count` keys under 3/4 load.
size_t CapacityFor(size_t count) {
  size_t capacity = kMinCapacity;
  while (capacity / 4 * 3 < count) capacity *= 2;
  return capacity;
}

}  // namespace

bool KeySet::Insert(uint64_t key) {
  if (key == 0) {
    if (has_zero_) return false;
    has_zero_ = true;
    ++size_;
    return true;
  }
  if (slots_.empty() || (size_ + 1) > slots_.size() / 4 * 3) {
    Rebuild(CapacityFor(size_ + 1), Keys());
  }
  const size_t mask = slots_.size() - 1;
  for (size_t i = HomeOf(key);; i = (i + 1) & mask) {
    if (slots_[i] == key) return false;
    if (slots_[i] == 0) {
      slots_[i] = key;
      ++size_;
      return true;
    }
  }
}

bool KeySet::Contains(uint64_t key) const {
  if (key == 0) return has_zero_;
  if (slots_.empty()) return false;
  const size_t mask = slots_.size() - 1;
  for (size_t i = HomeOf(key);; i = (i + 1) & mask) {
    if (slots_[i] == key) return true;
    if (slots_[i] == 0) return false;
  }
}

void KeySet::EraseAbove(uint64_t max_key) {
  std::vector<uint64_t> kept = Keys();
  kept.erase(std::remove_if(kept.begin(), kept.end(), [&](uint64_t k) { return k > max_key; }),
             kept.end());
  // Keeps the capacity: the sample fills up again to the same size.
  Rebuild(std::max(slots_.size(), CapacityFor(kept.size())), kept);
}

void KeySet::Clear() {
  slots_.assign(slots_.size(), 0);
  size_ = 0;
  has_zero_ = false;
}

void KeySet::Reserve(size_t count) {
  if (CapacityFor(count) > slots_.size()) Rebuild(CapacityFor(count), Keys());
}

std::vector<uint64_t> KeySet::Keys() const {
  std::vector<uint64_t> keys;
  keys.reserve(size_);
  if (has_zero_) keys.push_back(0);
  for (uint64_t k : slots_) {
    if (k != 0) keys.push_back(k);
  }
  return keys;
}

void KeySet::Rebuild(size_t capacity, const std::vector<uint64_t>& keys) {
  slots_.assign(capacity, 0);
  shift_ = 64 - __builtin_ctzll(capacity);
  size_ = 0;
  has_zero_ = false;
  for (uint64_t k : keys) Insert(k);
}

}  // namespace sieve::internal
