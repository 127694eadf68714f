// HostCountSketch: how many of the Sieve's queued URLs belong to which
// authorities, approximately, in a fixed 32 KiB. Counts are kept per hash
// bucket of the authority, so two authorities may share a bucket; what the
// Frontier asks of it is one-sided and exact all the same: "are any URLs
// queued outside the buckets of these (backlogged) authorities?" A yes is
// certain (those URLs belong to other authorities); a no may miss an
// authority that shares a bucket with a backlogged one (1 in 4096 each).
//
//   HostCountSketch sketch;
//   sketch.Add("https://a.example");      // a URL of a.example entered the Sieve
//   sketch.Remove("https://a.example");   // ... and was popped
//   bool others = sketch.total() > sketch.count(sketch.Bucket("https://a.example"));
//
// Buckets are StableAuthorityHash(authority) % kBuckets: the same in every
// run, so a checkpoint can keep the counts.
//
// Threading: not thread-safe; the Frontier calls it under its lock.
#ifndef CRAWLER_SRC_FRONTIER_HOST_COUNT_SKETCH_H_
#define CRAWLER_SRC_FRONTIER_HOST_COUNT_SKETCH_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace crawler {

class HostCountSketch {
 public:
  static constexpr size_t kBuckets = 4096;

  size_t Bucket(std::string_view authority) const;
  void Add(std::string_view authority);
  // Ignored when the authority's bucket is empty (a URL the sketch never saw,
  // e.g. queued before a resume that could not tell its authority).
  void Remove(std::string_view authority);

  uint64_t total() const { return total_; }
  uint64_t count(size_t bucket) const { return counts_[bucket]; }

  // For checkpoints (buckets come from a stable hash, so they mean the same
  // in the resumed run): `n` more URLs in `bucket` (< kBuckets; others ignored).
  void AddToBucket(size_t bucket, uint64_t n);

 private:
  std::array<uint64_t, kBuckets> counts_{};
  uint64_t total_ = 0;
};

}  // namespace crawler

#endif  // CRAWLER_SRC_FRONTIER_HOST_COUNT_SKETCH_H_
