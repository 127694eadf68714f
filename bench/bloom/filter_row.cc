// Measures the configurations of one layout on one filter of n keys: inserts
// (taking turns, see TimeInserts), then positive and negative lookups.
// Keys are generated in chunks outside the timed region; only the filter calls
// are timed, by thread CPU time (cpu_clock.h). With several threads each takes
// an equal share of the work and the phase time is the slowest thread's, so
// ns/op is the aggregate cost per key of all threads together.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bloom/filter.h"
#include "cpu_clock.h"
#include "keys.h"
#include "row.h"

namespace bloom_bench {
namespace {

constexpr size_t kKeyChunk = 4096;

enum class Phase { kInsert, kPositive, kNegative };

// Runs one phase over key indexes [begin, end), split across setup.threads.
// Returns the slowest thread's timed CPU nanoseconds and the lookups' hits.
struct PhaseTime {
  double busy_ns = 0;
  uint64_t hits = 0;
};

PhaseTime RunPhase(bloom::BloomFilter& filter, const RowSetup& setup, Phase phase, uint64_t begin,
                   uint64_t end) {
  std::vector<double> busy_ns(setup.threads, 0);
  std::vector<uint64_t> hits(setup.threads, 0);
  auto worker = [&](int t) {
    KeyChunk keys(kKeyChunk);
    std::vector<bloom::Hash128> hashes(setup.prehashed ? kKeyChunk : 0);
    bool out[kKeyChunk];
    const uint64_t total = end - begin;
    const uint64_t first = begin + total * t / setup.threads;
    const uint64_t last = begin + total * (t + 1) / setup.threads;
    for (uint64_t start = first; start < last; start += kKeyChunk) {
      const size_t count = static_cast<size_t>(std::min<uint64_t>(kKeyChunk, last - start));
      if (phase == Phase::kInsert) keys.FillRange(true, start, count);
      if (phase == Phase::kPositive) keys.FillSample(setup.n, start, count);
      if (phase == Phase::kNegative) keys.FillRange(false, start, count);
      const absl::Span<const std::string_view> span(keys.data(), count);
      if (setup.prehashed) {
        for (size_t j = 0; j < count; ++j) hashes[j] = bloom::HashKey(span[j]);
      }
      const absl::Span<const bloom::Hash128> hashed(hashes.data(), setup.prehashed ? count : 0);
      const double t0 = ThreadCpuNanos();
      if (setup.prehashed) {
        if (phase == Phase::kInsert) {
          filter.AddBatch(hashed);
        } else {
          filter.MayContainBatch(hashed, absl::MakeSpan(out, count));
        }
      } else if (phase == Phase::kInsert) {
        if (setup.batched) {
          filter.AddBatch(span);
        } else {
          for (std::string_view key : span) filter.Add(key);
        }
      } else if (setup.batched) {
        filter.MayContainBatch(span, absl::MakeSpan(out, count));
      } else {
        for (size_t j = 0; j < count; ++j) out[j] = filter.MayContain(span[j]);
      }
      busy_ns[t] += ThreadCpuNanos() - t0;
      if (phase != Phase::kInsert) hits[t] += std::count(out, out + count, true);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < setup.threads; ++t) threads.emplace_back(worker, t);
  for (std::thread& thread : threads) thread.join();
  PhaseTime result;
  result.busy_ns = *std::max_element(busy_ns.begin(), busy_ns.end());
  for (uint64_t h : hits) result.hits += h;
  return result;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Inserts all n keys, the configurations taking turns over rounds of up to
// 2^20 keys, so each one's inserts see the same range of fill (0 to 100%).
std::vector<double> TimeInserts(bloom::BloomFilter& filter, const std::vector<RowSetup>& setups) {
  const uint64_t n = setups.front().n;
  // At least 16 turns each; at most 2^20 keys per turn.
  const uint64_t round_keys =
      std::clamp<uint64_t>(n / (16 * setups.size()), kKeyChunk, uint64_t{1} << 20);
  std::vector<double> busy_ns(setups.size(), 0);
  std::vector<uint64_t> keys(setups.size(), 0);
  for (uint64_t start = 0, round = 0; start < n; start += round_keys, ++round) {
    const size_t which = round % setups.size();
    const uint64_t end = std::min(n, start + round_keys);
    busy_ns[which] += RunPhase(filter, setups[which], Phase::kInsert, start, end).busy_ns;
    keys[which] += end - start;
  }
  std::vector<double> ns_per_key(setups.size(), 0);
  for (size_t i = 0; i < setups.size(); ++i) {
    if (keys[i] > 0) ns_per_key[i] = busy_ns[i] / static_cast<double>(keys[i]);
  }
  return ns_per_key;
}

// Median ns per lookup over the repeats, for present or absent keys; checks
// that no present key is missed and counts false positives.
double TimeLookups(bloom::BloomFilter& filter, const RowSetup& setup, Phase phase,
                   uint64_t* false_positives) {
  std::vector<double> ns;
  for (int r = 0; r < setup.repeats; ++r) {
    const uint64_t begin = static_cast<uint64_t>(r) * setup.queries;
    const PhaseTime t = RunPhase(filter, setup, phase, begin, begin + setup.queries);
    if (phase == Phase::kPositive && t.hits != setup.queries) {
      std::fprintf(stderr, "bloom-bench: FALSE NEGATIVE (%llu of %llu found)\n",
                   static_cast<unsigned long long>(t.hits),
                   static_cast<unsigned long long>(setup.queries));
      std::exit(1);
    }
    if (phase == Phase::kNegative) *false_positives += t.hits;
    ns.push_back(t.busy_ns / static_cast<double>(setup.queries));
  }
  return Median(ns);
}

// AnonHugePages of the whole process, in MB (-1 if unreadable).
double AnonHugePagesMb() {
  std::ifstream in("/proc/self/smaps_rollup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("AnonHugePages:", 0) == 0) return std::atof(line.c_str() + 14) / 1024;
  }
  return -1;
}

std::string ImplName(const RowSetup& setup) {
  std::string name = bloom::LayoutName(setup.layout);
  if (setup.prehashed) return name + "-batched-hashed";
  return name + (setup.batched ? "-batched" : "-single");
}

}  // namespace

std::vector<RowResult> RunLayoutRows(const std::vector<RowSetup>& setups) {
  const RowSetup& first = setups.front();
  bloom::FilterOptions options;
  options.expected_count = first.n;
  options.fp_rate = first.p;
  options.layout = first.layout;
  absl::StatusOr<bloom::BloomFilter> filter = bloom::BloomFilter::Create(options);
  if (!filter.ok()) {
    std::fprintf(stderr, "bloom-bench: %s\n", filter.status().ToString().c_str());
    std::exit(1);
  }
  if (first.dirty_tracking) filter->EnableDirtyTracking();
  const std::vector<double> insert_ns = TimeInserts(*filter, setups);
  const double anon_huge_mb = AnonHugePagesMb();
  std::vector<RowResult> rows;
  for (size_t i = 0; i < setups.size(); ++i) {
    const RowSetup& setup = setups[i];
    RowResult row;
    row.impl = ImplName(setup);
    row.anon_huge_mb = anon_huge_mb;
    row.filter_mb = static_cast<double>(filter->MemoryBytes()) / (1 << 20);
    row.threads = setup.threads;
    row.n = setup.n;
    row.p = setup.p;
    row.hash_count = filter->HashCount();
    row.bits_per_key = static_cast<double>(filter->BitCount()) / static_cast<double>(setup.n);
    row.insert_ns = insert_ns[i];
    uint64_t false_positives = 0;
    row.query_pos_ns = TimeLookups(*filter, setup, Phase::kPositive, &false_positives);
    row.query_neg_ns = TimeLookups(*filter, setup, Phase::kNegative, &false_positives);
    row.fpr = static_cast<double>(false_positives) /
              static_cast<double>(setup.queries * static_cast<uint64_t>(setup.repeats));
    rows.push_back(row);
  }
  return rows;
}

}  // namespace bloom_bench
