// LatencyHistogram: a bucket per bound, found by a linear scan of 12 bounds
// (cheaper than the atomic add that follows it).
#include <algorithm>
#include <cmath>

#include "crawler/metrics.h"

namespace crawler {

void LatencyHistogram::Observe(double seconds) {
  if (!(seconds > 0)) seconds = 0;  // NaN and negatives
  size_t bucket = 0;
  while (bucket < kBounds.size() && seconds > kBounds[bucket]) ++bucket;
  buckets_[bucket].fetch_add(1, std::memory_order_relaxed);
  const double micros = std::min(seconds * 1e6, 1e15);  // a finite sum whatever comes in
  sum_us_.fetch_add(static_cast<uint64_t>(std::llround(micros)), std::memory_order_relaxed);
}

LatencyHistogram::Counts LatencyHistogram::Read() const {
  Counts counts;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    counts.buckets[i] = buckets_[i].load(std::memory_order_relaxed);
  }
  counts.count = 0;
  for (uint64_t n : counts.buckets) counts.count += n;  // consistent with the buckets read
  counts.sum_s = static_cast<double>(sum_us_.load(std::memory_order_relaxed)) / 1e6;
  return counts;
}

}  // namespace crawler
