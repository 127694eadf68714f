// Measures one filter configuration: inserts, positive and negative lookups.
// Keys are generated in chunks outside the timed region; only the filter calls
// are timed, by thread CPU time (cpu_clock.h). With several threads each takes
// an equal share of the work and the phase time is the slowest thread's, so
// ns/op is the aggregate cost per key of all threads together.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "bloom/filter.h"
#include "cpu_clock.h"
#include "keys.h"
#include "row.h"

namespace bloom_bench {
namespace {

constexpr size_t kChunk = 4096;

enum class Phase { kInsert, kPositive, kNegative };

struct PhaseResult {
  double ns_per_op = 0;
  uint64_t hits = 0;
};

// Runs one phase over `total` operations split across threads.
PhaseResult RunPhase(bloom::BloomFilter& filter, const RowSetup& setup, Phase phase, uint64_t total,
                     uint64_t seed) {
  std::vector<double> busy_ns(setup.threads, 0);
  std::vector<uint64_t> hits(setup.threads, 0);
  auto worker = [&](int t) {
    KeyChunk keys(kChunk);
    bool out[kChunk];
    const uint64_t begin = total * t / setup.threads;
    const uint64_t end = total * (t + 1) / setup.threads;
    for (uint64_t start = begin; start < end; start += kChunk) {
      const size_t count = static_cast<size_t>(std::min<uint64_t>(kChunk, end - start));
      if (phase == Phase::kInsert) keys.FillRange(true, start, count);
      if (phase == Phase::kPositive) keys.FillSample(setup.n, seed + start, count);
      if (phase == Phase::kNegative) keys.FillRange(false, seed + start, count);
      const absl::Span<const std::string_view> span(keys.data(), count);
      const double t0 = ThreadCpuNanos();
      if (phase == Phase::kInsert) {
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
  PhaseResult result;
  result.ns_per_op = *std::max_element(busy_ns.begin(), busy_ns.end()) / static_cast<double>(total);
  for (uint64_t h : hits) result.hits += h;
  return result;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

RowResult RunFilterRow(const RowSetup& setup) {
  bloom::FilterOptions options;
  options.expected_count = setup.n;
  options.fp_rate = setup.p;
  options.layout = setup.layout;
  absl::StatusOr<bloom::BloomFilter> filter = bloom::BloomFilter::Create(options);
  if (!filter.ok()) {
    std::fprintf(stderr, "bloom-bench: %s\n", filter.status().ToString().c_str());
    std::exit(1);
  }
  RowResult row;
  row.impl =
      std::string(bloom::LayoutName(setup.layout)) + (setup.batched ? "-batched" : "-single");
  row.threads = setup.threads;
  row.n = setup.n;
  row.p = setup.p;
  row.hash_count = filter->HashCount();
  row.bits_per_key = static_cast<double>(filter->BitCount()) / static_cast<double>(setup.n);
  row.insert_ns = RunPhase(*filter, setup, Phase::kInsert, setup.n, 0).ns_per_op;

  std::vector<double> positive;
  std::vector<double> negative;
  uint64_t false_positives = 0;
  uint64_t negatives = 0;
  for (int r = 0; r < setup.repeats; ++r) {
    const uint64_t seed = static_cast<uint64_t>(r) * setup.queries;
    const PhaseResult pos = RunPhase(*filter, setup, Phase::kPositive, setup.queries, seed + 77);
    if (pos.hits != setup.queries) {
      std::fprintf(stderr, "bloom-bench: FALSE NEGATIVE (%llu of %llu found)\n",
                   static_cast<unsigned long long>(pos.hits),
                   static_cast<unsigned long long>(setup.queries));
      std::exit(1);
    }
    positive.push_back(pos.ns_per_op);
    const PhaseResult neg = RunPhase(*filter, setup, Phase::kNegative, setup.queries, seed);
    negative.push_back(neg.ns_per_op);
    false_positives += neg.hits;
    negatives += setup.queries;
  }
  row.query_pos_ns = Median(positive);
  row.query_neg_ns = Median(negative);
  row.fpr = static_cast<double>(false_positives) / static_cast<double>(negatives);
  return row;
}

}  // namespace bloom_bench
