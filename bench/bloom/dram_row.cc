// The references the filter is measured against: random 64-byte reads over a
// buffer as large as the filter, in huge pages like the filter. Three kinds,
// because "one random DRAM access" means different things:
//  - dram-dep: dependent loads (each address comes from the previous load,
//    pointer chasing): the full latency of one miss, nothing overlapped. The
//    fair reference for a single lookup, whose caller waits for the answer.
//  - dram: independent loads in a plain loop; the core overlaps as many
//    misses as its reorder window holds. Throughput with no work per key.
//  - dram-pf: independent loads with a software prefetch 32 reads ahead, the
//    same distance as the filter's batch pipeline (bloom/src/filter_batch.cc):
//    the fair reference for a batched lookup.
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
namespace {

constexpr size_t kReadChunk = 4096;
constexpr size_t kPrefetchDistance = 32;  // = kBlockedDepth in filter_batch.cc

enum class Kind { kIndependent, kPrefetched };

double MedianOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// ns per read of `reads` independent reads at random lines, median of repeats.
double TimeIndependent(const uint64_t* words, uint64_t lines, uint64_t reads, int repeats,
                       Kind kind, uint64_t* sink) {
  std::vector<uint64_t> offsets(kReadChunk);
  std::vector<double> results;
  for (int r = 0; r < repeats; ++r) {
    double busy_ns = 0;
    for (uint64_t start = 0; start < reads; start += kReadChunk) {
      const size_t count = static_cast<size_t>(std::min<uint64_t>(kReadChunk, reads - start));
      const uint64_t salt = (kind == Kind::kPrefetched ? 7 : 3) * reads * (r + 1);
      for (size_t j = 0; j < count; ++j) offsets[j] = (Mix(start + j + salt) % lines) * 8;
      const double t0 = ThreadCpuNanos();
      if (kind == Kind::kPrefetched) {
        for (size_t j = 0; j < count; ++j) {
          if (j + kPrefetchDistance < count) {
            __builtin_prefetch(words + offsets[j + kPrefetchDistance], 0, 3);
          }
          *sink += words[offsets[j]];
        }
      } else {
        for (size_t j = 0; j < count; ++j) *sink += words[offsets[j]];
      }
      busy_ns += ThreadCpuNanos() - t0;
    }
    results.push_back(busy_ns / static_cast<double>(reads));
  }
  return MedianOf(results);
}

// ns per read of a pointer chase through `reads` random lines.
double TimeDependent(uint64_t* words, uint64_t lines, uint64_t reads, int repeats, uint64_t* sink) {
  // A random cycle through min(lines, 4 * reads) lines: word 0 of each line
  // holds the word index of the next line of the cycle.
  const uint64_t cycle = std::min<uint64_t>(lines, 4 * reads);
  std::vector<uint64_t> order(cycle);
  for (uint64_t i = 0; i < cycle; ++i) order[i] = (Mix(i) % lines);
  std::sort(order.begin(), order.end());
  order.erase(std::unique(order.begin(), order.end()), order.end());
  for (uint64_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[Mix(~i) % (i + 1)]);
  for (size_t i = 0; i < order.size(); ++i) {
    words[order[i] * 8] = order[(i + 1) % order.size()] * 8;
  }
  std::vector<double> results;
  uint64_t at = order[0] * 8;
  for (int r = 0; r < repeats; ++r) {
    const double t0 = ThreadCpuNanos();
    for (uint64_t i = 0; i < reads; ++i) at = words[at];
    results.push_back((ThreadCpuNanos() - t0) / static_cast<double>(reads));
  }
  *sink += at;
  return MedianOf(results);
}

RowResult Row(const char* impl, double ns, uint64_t mapped, uint64_t n, double p) {
  RowResult row;
  row.impl = impl;
  row.n = n;
  row.p = p;
  row.bits_per_key = static_cast<double>(mapped) * 8 / static_cast<double>(n);
  row.query_neg_ns = ns;
  row.query_pos_ns = ns;
  return row;
}

}  // namespace

std::vector<RowResult> RunDramRows(uint64_t bytes, uint64_t reads, int repeats, uint64_t n,
                                   double p) {
  const uint64_t lines = std::max<uint64_t>(1, bytes / 64);
  const size_t mapped = lines * 64;
  void* memory = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) {
    std::perror("bloom-bench: mmap");
    std::exit(1);
  }
  madvise(memory, mapped, MADV_HUGEPAGE);
  std::memset(memory, 1, mapped);  // commit every page, as a filled filter would
  uint64_t* words = static_cast<uint64_t*>(memory);
  uint64_t sink = 0;
  std::vector<RowResult> rows;
  rows.push_back(Row(
      "dram-dep", TimeDependent(words, lines, std::min<uint64_t>(reads, 500'000), repeats, &sink),
      mapped, n, p));
  rows.push_back(Row("dram",
                     TimeIndependent(words, lines, reads, repeats, Kind::kIndependent, &sink),
                     mapped, n, p));
  rows.push_back(Row("dram-pf",
                     TimeIndependent(words, lines, reads, repeats, Kind::kPrefetched, &sink),
                     mapped, n, p));
  munmap(memory, mapped);
  if (sink == 42) std::puts("");  // keep the loads alive
  return rows;
}

}  // namespace bloom_bench
