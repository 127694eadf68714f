#include "host_limit_counts.h"

#include <algorithm>
#include <limits>

namespace crawler {

uint64_t StableAuthorityHash(std::string_view authority) {
  uint64_t hash = 14695981039346656037ull;  // FNV-1a, 64-bit
  for (const char c : authority) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

uint32_t* HostLimitCounts::SharedCounter(uint64_t hash) {
  if (shared_ == nullptr) shared_ = std::make_unique<uint32_t[]>(kSharedBuckets);
  return &shared_[(hash >> 17) % kSharedBuckets];  // high bits: the map uses the low ones
}

uint64_t HostLimitCounts::Get(std::string_view authority) const {
  const uint64_t hash = StableAuthorityHash(authority);
  if (auto it = exact_.find(hash); it != exact_.end()) return it->second;
  if (shared_ == nullptr) return 0;
  return shared_[(hash >> 17) % kSharedBuckets];
}

void HostLimitCounts::Increment(std::string_view authority) {
  const uint64_t hash = StableAuthorityHash(authority);
  uint32_t* counter = nullptr;
  if (auto it = exact_.find(hash); it != exact_.end()) {
    counter = &it->second;
  } else if (exact_.size() < kMaxExact) {
    counter = &exact_[hash];
  } else {
    counter = SharedCounter(hash);
  }
  if (*counter < std::numeric_limits<uint32_t>::max()) ++*counter;
}

size_t HostLimitCounts::MemoryBytes() const {
  const size_t slots = exact_.capacity();
  return slots * (sizeof(std::pair<const uint64_t, uint32_t>) + 1) +
         (shared_ != nullptr ? kSharedBuckets * sizeof(uint32_t) : 0);
}

std::vector<std::pair<uint64_t, uint64_t>> HostLimitCounts::ExactCounts() const {
  std::vector<std::pair<uint64_t, uint64_t>> out(exact_.begin(), exact_.end());
  std::sort(out.begin(), out.end());  // the file does not depend on the map's order
  return out;
}

std::vector<std::pair<uint64_t, uint64_t>> HostLimitCounts::SharedCounts() const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  if (shared_ == nullptr) return out;
  for (size_t i = 0; i < kSharedBuckets; ++i) {
    if (shared_[i] != 0) out.emplace_back(i, shared_[i]);
  }
  return out;
}

void HostLimitCounts::RestoreExact(uint64_t hash, uint64_t count) {
  exact_[hash] = static_cast<uint32_t>(std::min<uint64_t>(count, ~uint32_t{0}));
}

void HostLimitCounts::RestoreShared(size_t bucket, uint64_t count) {
  if (bucket >= kSharedBuckets) return;
  if (shared_ == nullptr) shared_ = std::make_unique<uint32_t[]>(kSharedBuckets);
  shared_[bucket] = static_cast<uint32_t>(std::min<uint64_t>(count, ~uint32_t{0}));
}

}  // namespace crawler
