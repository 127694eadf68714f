// One benchmark row: a layout, single or batched calls, a thread count, and
// what was measured.
#ifndef BENCH_BLOOM_ROW_H_
#define BENCH_BLOOM_ROW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "bloom/params.h"

namespace bloom_bench {

struct RowSetup {
  bloom::Layout layout = bloom::Layout::kBlocked;
  bool batched = false;
  // Batched calls on keys hashed outside the timed region (Hash128 overloads):
  // what the filter costs beyond hashing.
  bool prehashed = false;
  int threads = 1;
  uint64_t n = 0;
  double p = 0.01;
  uint64_t queries = 0;  // per lookup kind and repeat
  int repeats = 3;
  // EnableDirtyTracking on the filter before the inserts (what a
  // checkpointing Sieve pays per insert: one bit per changed 64-byte block).
  bool dirty_tracking = false;
};

struct RowResult {
  std::string impl;  // e.g. "blocked-batched", or "dram"
  int threads = 1;
  uint64_t n = 0;
  double p = 0;
  double bits_per_key = 0;
  double fpr = 0;           // measured over the negative queries
  double insert_ns = 0;     // per key, wall clock over all threads together
  double query_pos_ns = 0;  // median of repeats
  double query_neg_ns = 0;  // median of repeats
  uint32_t hash_count = 0;
  // AnonHugePages of the process after the inserts (the filter is then its
  // only large mapping), to check the filter really sits in huge pages.
  double anon_huge_mb = -1;
  double filter_mb = 0;
};

// Builds one filter of n keys for setups (same layout, n, p; differing in
// batched and threads) and measures each setup on it. Exits on error.
std::vector<RowResult> RunLayoutRows(const std::vector<RowSetup>& setups);

// The memory system's limits over a buffer of `bytes` (huge pages requested),
// ns per random 64-byte read, median of repeats: "dram-dep" (dependent loads:
// latency), "dram" (independent loads), "dram-pf" (independent loads with a
// software prefetch at the filter pipeline's distance). See dram_row.cc.
std::vector<RowResult> RunDramRows(uint64_t bytes, uint64_t reads, int repeats, uint64_t n,
                                   double p);

// XXH3-128 of the benchmark keys alone ("hash"), ns per key.
RowResult RunHashRow(uint64_t queries, int repeats, uint64_t n, double p);

}  // namespace bloom_bench

#endif  // BENCH_BLOOM_ROW_H_
