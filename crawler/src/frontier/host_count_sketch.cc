#include "host_count_sketch.h"

#include "host_limit_counts.h"

namespace crawler {

size_t HostCountSketch::Bucket(std::string_view authority) const {
  return StableAuthorityHash(authority) % kBuckets;
}

void HostCountSketch::Add(std::string_view authority) {
  ++counts_[Bucket(authority)];
  ++total_;
}

void HostCountSketch::AddToBucket(size_t bucket, uint64_t n) {
  if (bucket >= kBuckets) return;
  counts_[bucket] += n;
  total_ += n;
}

void HostCountSketch::Remove(std::string_view authority) {
  uint64_t& count = counts_[Bucket(authority)];
  if (count == 0) return;
  --count;
  --total_;
}

}  // namespace crawler
