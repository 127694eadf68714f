#include "host_count_sketch.h"

#include "absl/hash/hash.h"

namespace crawler {

size_t HostCountSketch::Bucket(std::string_view authority) const {
  return absl::Hash<std::string_view>{}(authority) % kBuckets;
}

void HostCountSketch::Add(std::string_view authority) {
  ++counts_[Bucket(authority)];
  ++total_;
}

void HostCountSketch::Remove(std::string_view authority) {
  uint64_t& count = counts_[Bucket(authority)];
  if (count == 0) return;
  --count;
  --total_;
}

}  // namespace crawler
