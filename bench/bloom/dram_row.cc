// The reference the filter is measured against: independent random 64-byte
// reads over a buffer as large as the filter, in huge pages like the filter.
// The loads do not depend on each other, so the core overlaps as many misses
// as it can: this is the throughput limit of one random line per key.
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cpu_clock.h"
#include "keys.h"
#include "row.h"

namespace bloom_bench {

RowResult RunDramRow(uint64_t bytes, uint64_t reads, int repeats, uint64_t n, double p) {
  const uint64_t lines = std::max<uint64_t>(1, bytes / 64);
  const size_t mapped = lines * 64;
  void* memory = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) {
    std::perror("bloom-bench: mmap");
    std::exit(1);
  }
  madvise(memory, mapped, MADV_HUGEPAGE);
  std::memset(memory, 1, mapped);  // commit every page, as a filled filter would
  const uint64_t* words = static_cast<const uint64_t*>(memory);

  constexpr size_t kChunk = 4096;
  std::vector<uint64_t> offsets(kChunk);
  std::vector<double> results;
  uint64_t sink = 0;
  for (int r = 0; r < repeats; ++r) {
    double busy_ns = 0;
    for (uint64_t start = 0; start < reads; start += kChunk) {
      const size_t count = static_cast<size_t>(std::min<uint64_t>(kChunk, reads - start));
      for (size_t j = 0; j < count; ++j) offsets[j] = (Mix(start + j + r * reads) % lines) * 8;
      const double t0 = ThreadCpuNanos();
      for (size_t j = 0; j < count; ++j) sink += words[offsets[j]];
      busy_ns += ThreadCpuNanos() - t0;
    }
    results.push_back(busy_ns / static_cast<double>(reads));
  }
  munmap(memory, mapped);
  if (sink == 42) std::puts("");  // keep the loads alive
  std::sort(results.begin(), results.end());
  RowResult row;
  row.impl = "dram";
  row.n = n;
  row.p = p;
  row.bits_per_key = static_cast<double>(mapped) * 8 / static_cast<double>(n);
  row.query_neg_ns = results[results.size() / 2];
  row.query_pos_ns = row.query_neg_ns;
  return row;
}

}  // namespace bloom_bench
