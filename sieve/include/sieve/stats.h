// sieve/stats.h: a snapshot of a Sieve's counters and sizes, from Sieve::Stats().
// The crawler logs it periodically; the benchmark reads the memory figures.
//
//   sieve::SieveStats s = sieve->Stats();
//   spdlog::info("queued {} dropped {} fp now {:.4f}", s.queued, s.dropped, s.current_fp_rate);
//
// Threading: plain data (a copy taken under the Sieve's locks).
#ifndef SIEVE_STATS_H_
#define SIEVE_STATS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sieve {

// The false-positive rate measured on the exact sample of the URL stream
// (sieve/src/fp_sample.h has the estimator and its accuracy). Every number is
// finite and >= 0.
struct MeasuredFpRate {
  // S: a URL is sampled when its sample hash falls in the lowest 1/S of the
  // hash range, so every process and run samples the same URLs; S doubles
  // (keeping a subset) whenever the sample reaches its cap.
  uint64_t sample_one_in = 1;
  uint64_t sampled_new = 0;              // n: distinct sampled URLs (each was new once)
  uint64_t sampled_false_positives = 0;  // f: of those, the first push the filter dropped
  uint64_t sample_bytes = 0;             // memory of the sample
  // p^ = f / n with its 95% Wilson score interval.
  double rate = 0;
  double rate_low = 0;
  double rate_high = 0;
  // New URLs wrongly dropped so far: accepted * p^ / (1 - p^), and the same
  // formula at the interval's ends. Infinite ends (p^ = 1) are capped at
  // 1e18, so every value is a finite number.
  double wrongly_dropped = 0;
  double wrongly_dropped_low = 0;
  double wrongly_dropped_high = 0;
};

// One priority's lane: its URLs queued now (memory and disk).
struct LaneStats {
  int32_t priority = 0;
  uint64_t queued = 0;
  bool operator==(const LaneStats&) const = default;
};

// Stats().top_lanes holds at most this many lanes, the highest priorities.
inline constexpr size_t kTopLanesInStats = 16;

struct SieveStats {
  // Queue.
  uint64_t queued = 0;     // URLs waiting to be popped (memory and disk)
  uint64_t in_flight = 0;  // popped and not yet marked done
  uint64_t accepted = 0;   // pushes that were new and got enqueued
  uint64_t dropped = 0;    // pushes dropped as (probably) seen
  uint64_t popped = 0;     // successful pops
  uint64_t done = 0;       // MarkDone calls that matched an in-flight URL
  uint64_t deferred = 0;   // Defer calls that matched (not kept in checkpoints)
  // URLs lost because a spill file could not be read back (disk errors).
  uint64_t lost = 0;
  // Pushes refused because their payload was over kMaxPayloadBytes.
  uint64_t refused = 0;
  bool closed = false;
  uint64_t producers = 0;  // open producers (Sieve::AddProducer not yet done)
  // Priority lanes with URLs queued now, and the highest kTopLanesInStats of
  // them, highest first (a Sieve that only ever saw priority 0: one lane).
  uint64_t lanes = 0;
  std::vector<LaneStats> top_lanes;

  // Filter. estimated_count is the filter's fill-based estimate n^ of distinct
  // URLs (bloom/filter.h: within 1-2% below 50% fill); nullopt when the filter
  // is saturated (every bit set: n^ is infinite, the fill says nothing).
  std::optional<double> estimated_count = 0.0;
  bool filter_saturated = false;   // n^ is infinite: a new URL is always dropped
  uint64_t capacity = 0;           // URLs the filter holds at its target rate
  double target_fp_rate = 0;       // p it was sized for
  double current_fp_rate = 0;      // rate a new URL sees now, from n^; in [0, 1]
  double fill_ratio = 0;           // bits set / bits
  uint64_t overflow_warnings = 0;  // warnings logged (estimated count > capacity, x2, x4...)

  // Memory and disk.
  uint64_t filter_bytes = 0;        // the bit array(s)
  uint64_t queue_memory_bytes = 0;  // queued URLs in memory (packed segments)
  uint64_t queue_disk_bytes = 0;    // spilled segment files
  uint64_t spilled_segments = 0;    // spill files on disk now
  // Spills that failed since creation (a full disk under spill_dir): their
  // segments stayed in memory, over the budget. Sieve::Health() says why.
  uint64_t spill_failures = 0;

  // The measured rate; nullopt with the reason in fp_measured_unknown when
  // there is none (no sampled URL yet; RedisSieve keeps no sample).
  std::optional<MeasuredFpRate> fp_measured;
  std::string fp_measured_unknown;
};

}  // namespace sieve

#endif  // SIEVE_STATS_H_
