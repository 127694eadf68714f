// FpSample: an exact sample of the URL stream, so the Sieve can *measure* how
// many new URLs its filter wrongly drops instead of only computing it.
//
// Which URLs: a URL is sampled when its sample key (a 64-bit mix of its
// 128-bit hash, independent of the bits the filter's probes use) is at most
// 2^64 / S - 1, S a power of two. The choice depends on the URL alone, so
// every process and every run samples the same URLs, and the sample at 2S is
// a subset of the sample at S.
//
// What it knows: for sampled URLs the sample is an exact set, so it knows the
// truth: a sampled URL not in the set is new. If the filter said "seen" at
// that first push, the filter was wrong (a false positive), and the URL is
// remembered as such. So n = |set| distinct sampled URLs, each seen new once,
// and f = those the filter dropped. Both are functions of the set, which is
// what lets S adapt exactly: when the set reaches max_urls, S doubles and the
// keys above the new limit are erased, leaving the sample (and n, f) it would
// have had with that S from the start.
//
// Estimator (docs/fp-rate.md has the derivation and the measured tables):
//   measured rate      p^ = f / n, 95% Wilson score interval
//                      (p^ + z^2/2n +- z sqrt(p^(1-p^)/n + z^2/4n^2)) / (1 + z^2/n),
//                      z = 1.96.
//   wrongly dropped    D^ = A p^ / (1 - p^), A = URLs accepted (exact), because
//                      new URLs = A + D and D / (A + D) = p; the interval is the
//                      same formula at the rate's interval ends. Clamped to
//                      [0, dropped pushes], an exact upper bound.
// p^ is the rate averaged over the whole stream of new URLs (not the rate now),
// which is what the count of URLs lost so far needs. Accuracy: f is close to
// Poisson, so D^ is within about +-2/sqrt(f) (95%): 400 sampled false
// positives give +-10%. Worked number: max_urls = 2^17 at p = 1% holds f ~
// 1300, so +-5.5%; at p = 1e-4, f ~ 13, so +-55% (the Wilson interval says
// so). Where it stops holding: a URL hashed to the same 128-bit value as
// another is a duplicate to the filter and to the sample alike (a false
// positive neither sees; ~n^2 / 2^129, nothing at 1e12 URLs).
//
// Bound: at most max_urls keys in the set (an 8-byte slot each in a KeySet at
// load 1/4..3/4: 2 MiB at 2^17 whatever the crawl's size; S ~ 2^13 at 1e9
// URLs), plus the false positives among them (a p share), plus a pending group
// of 256 observations (4 KiB).
//
//   FpSample sample(FpSample::Options{});
//   const bool is_new = filter.InsertIfNew(hash);
//   sample.Observe(hash, is_new);  // one compare unless the URL is sampled
//   std::optional<MeasuredFpRate> m = sample.Measure(accepted, dropped);
//
// Threading: every method may be called concurrently; Observe of an unsampled
// URL takes no lock.
//
// Sampled URLs are applied to the set in groups (kPendingGroup, in the order
// observed, so the result is the same as one at a time): each insert misses
// the cache twice (control bytes, then the slot), and a group lets the misses
// of the next inserts overlap with the current one. Every reader (Measure,
// SaveFile, one_in, MemoryBytes) applies the group first.
#ifndef SIEVE_SRC_FP_SAMPLE_H_
#define SIEVE_SRC_FP_SAMPLE_H_

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "bloom/hash.h"
#include "key_set.h"
#include "sieve/log.h"
#include "sieve/options.h"
#include "sieve/stats.h"

namespace sieve::internal {

// The 95% Wilson score interval of f successes in n trials (n > 0).
struct RateInterval {
  double rate = 0;
  double low = 0;
  double high = 0;
};
RateInterval WilsonInterval(uint64_t f, uint64_t n);

// The sample key of a URL's hash: murmur3's fmix64 of both halves, so its top
// bits are independent of the low bits the filter's probes take.
inline uint64_t SampleKey(const bloom::Hash128& h) {
  uint64_t k = h.low ^ ((h.high << 32) | (h.high >> 32));
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

class FpSample {
 public:
  struct Options {
    uint32_t min_one_in_log2 = 0;           // start at S = 2^this
    uint64_t max_urls = uint64_t{1} << 17;  // S doubles when the set passes this; 0 = off
  };
  explicit FpSample(const Options& options);

  // After the filter answered `filter_said_new` for `hash`: records a sampled
  // URL's truth. Unsampled URLs cost one atomic load and a compare.
  void Observe(const bloom::Hash128& hash, bool filter_said_new) {
    if (!enabled_) return;
    const uint64_t key = SampleKey(hash);
    if (key > max_key_.load(std::memory_order_relaxed)) return;
    ObserveSampled(key, filter_said_new);
  }
  void ObserveBatch(absl::Span<const bloom::Hash128> hashes, absl::Span<const bool> said_new);

  // The measured rate and loss, given the Sieve's exact counts of accepted and
  // dropped pushes; nullopt before any URL was sampled.
  std::optional<MeasuredFpRate> Measure(uint64_t accepted, uint64_t dropped) const;
  uint64_t one_in() const;
  bool enabled() const { return enabled_; }
  uint64_t MemoryBytes() const;

  // A checksummed file of its own (magic "SIEVEFPS", version 1, S, max_urls,
  // the keys, the false-positive keys; golden test in tests/sieve). Load of a
  // missing file is NotFound: the caller starts an empty sample.
  absl::Status SaveFile(const std::filesystem::path& path) const;
  absl::Status LoadFile(const std::filesystem::path& path);

 private:
  struct Pending {
    uint64_t key;
    bool filter_said_new;
  };
  static constexpr size_t kPendingGroup = 256;

  void ObserveSampled(uint64_t key, bool filter_said_new);
  // Queues one observation; applies the group when it is full.
  void AddPendingLocked(uint64_t key, bool filter_said_new) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Applies the queued observations in order, each insert's cache lines
  // fetched a few observations ahead.
  void ApplyPendingLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void ObserveSampledLocked(uint64_t key, bool filter_said_new) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void HalveLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  uint64_t MemoryBytesLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const bool enabled_;
  const uint64_t max_urls_;
  // The members below are mutable because the readers apply the pending
  // group: that changes how the sample is stored, not what it holds.
  mutable std::atomic<uint64_t> max_key_;  // sampled iff key <= max_key_ (= 2^64 / S - 1)
  mutable std::mutex mutex_;
  mutable uint32_t one_in_log2_ ABSL_GUARDED_BY(mutex_);
  mutable KeySet sampled_ ABSL_GUARDED_BY(mutex_);
  mutable KeySet false_positives_ ABSL_GUARDED_BY(mutex_);
  mutable std::vector<Pending> pending_ ABSL_GUARDED_BY(mutex_);
};

// Where MemorySieve::Save keeps the sample: a file of its own beside the
// checkpoint, written under the same locks right after it.
inline std::filesystem::path FpSamplePath(const std::filesystem::path& checkpoint_dir) {
  return checkpoint_dir / "sieve.fp-sample";
}

// The checkpoint's two hooks. Save writes FpSamplePath(dir) (no-op when the
// sample is off). Load reads it if present; a missing file (a checkpoint from
// before the sample) or a damaged one (logged as a warning naming it) leaves
// the sample empty: the rate is then measured from the resume on.
absl::Status SaveSampleBeside(const FpSample& sample, const std::filesystem::path& dir);
void LoadSampleBeside(FpSample& sample, const std::filesystem::path& dir, const LogSink& log);

// The sample's options from the Sieve's.
FpSample::Options SampleOptionsOf(const SieveOptions& options);

// Sets stats.fp_measured from `sample` (stats.accepted and stats.dropped
// already filled in), or says in stats.fp_measured_unknown why there is none.
void FillSampleStats(const FpSample& sample, SieveStats& stats);

}  // namespace sieve::internal

#endif  // SIEVE_SRC_FP_SAMPLE_H_
