// The cost of hashing alone: XXH3-128 (bloom::HashKey) of the benchmark's
// 47-byte keys, no filter access. Every string-key row pays it once per key.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "bloom/hash.h"
#include "cpu_clock.h"
#include "keys.h"
#include "row.h"

namespace bloom_bench {

RowResult RunHashRow(uint64_t queries, int repeats, uint64_t n, double p) {
  constexpr size_t kChunk = 4096;
  KeyChunk keys(kChunk);
  std::vector<double> results;
  uint64_t sink = 0;
  for (int r = 0; r < repeats; ++r) {
    double busy_ns = 0;
    for (uint64_t start = 0; start < queries; start += kChunk) {
      const size_t count = static_cast<size_t>(std::min<uint64_t>(kChunk, queries - start));
      keys.FillRange(false, start + static_cast<uint64_t>(r) * queries, count);
      const double t0 = ThreadCpuNanos();
      for (size_t j = 0; j < count; ++j) sink += bloom::HashKey(keys.data()[j]).low;
      busy_ns += ThreadCpuNanos() - t0;
    }
    results.push_back(busy_ns / static_cast<double>(queries));
  }
  if (sink == 42) std::puts("");  // keep the hashes alive
  std::sort(results.begin(), results.end());
  RowResult row;
  row.impl = "hash";
  row.n = n;
  row.p = p;
  row.query_neg_ns = results[results.size() / 2];
  row.query_pos_ns = row.query_neg_ns;
  return row;
}

}  // namespace bloom_bench
