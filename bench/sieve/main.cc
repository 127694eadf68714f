// sieve-bench: memory and push speed of the Sieve against exact hash sets.
//
//   build/bin/sieve-bench [--urls 1e6,1e7] [--expected N] [--p 0.01] [--json]
//                         [--plot docs/sieve-memory.png] [--baseline_max 1e7]
//                         [--sample_cost_rounds 5] [--fp_rows]
//
// For each N it pushes the same N distinct generated URLs (url_generator.h)
// through the Sieve and through a FIFO de-duplicated by
// std::unordered_set<std::string> and by absl::flat_hash_set<std::string>
// (baseline_queue.h), and reports bytes per URL for the seen-set alone and
// with the queue, nanoseconds per push, and the URLs the Sieve wrongly
// dropped. How memory is measured: memory_probe.h. Hash sets run only up to
// --baseline_max URLs (at 1e8 they need ~15 GB).
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "baseline_queue.h"
#include "bloom/filter.h"
#include "bloom/params.h"
#include "headline.h"
#include "memory_probe.h"
#include "sieve/sieve.h"
#include "url_generator.h"

ABSL_FLAG(std::string, urls, "1e6,1e7", "comma-separated URL counts N to run");
ABSL_FLAG(double, expected, 0, "the Sieve's expected_count (0: N, sized right)");
ABSL_FLAG(double, p, 0.01, "the Sieve's false-positive rate");
ABSL_FLAG(bool, json, false, "print one JSON object per row instead of a table");
ABSL_FLAG(std::string, plot, "", "draw memory against N with gnuplot into this PNG");
ABSL_FLAG(double, baseline_max, 1e7, "largest N for the hash-set baselines");
ABSL_FLAG(std::string, replot, "",
          "read rows printed by an earlier --json run from this file (instead of measuring) "
          "and draw them with --plot");
ABSL_FLAG(std::string, spill_dir, "", "the Sieve's spill directory (default: $TMPDIR)");
ABSL_FLAG(double, fp_sample_max_urls, 131072,
          "SieveOptions::fp_sample_max_urls (0: no sample, for the A/B of its cost)");
ABSL_FLAG(int, sample_cost_rounds, 5,
          "rounds of the in-process A/B of the fp sample's push cost at the largest N (0: skip)");
ABSL_FLAG(int, lane_rounds, 0,
          "rounds of the lanes table (push and pop cost with 1, 16 and 1,024 priority lanes "
          "against no priorities, at the last --urls count); 0: no table");
ABSL_FLAG(std::string, lane_counts, "0,1,16,1024",
          "the lanes table's configurations: numbers of lanes the priorities are spread over "
          "(0: no priorities given)");
ABSL_FLAG(bool, headline, false,
          "instead of the tables: the headline run at the last --urls count (headline.h): "
          "priority lanes, spill and checkpoints, pushed then drained");
ABSL_FLAG(int, headline_lanes, 16, "the headline's priority lanes");
ABSL_FLAG(double, checkpoint_every, 0,
          "the headline's URLs between checkpoints (0: a tenth of the count)");
ABSL_FLAG(bool, fp_rows, true,
          "also print measured vs computed false-positive rate at p = 0.01 and 0.0001");

namespace sieve_bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kChunk = 4096;

struct Row {
  std::string impl;
  uint64_t urls = 0;
  double p = 0;
  double seen_bytes_per_url = 0;
  double total_bytes_per_url = 0;
  double push_ns = 0;         // batched for the Sieve (PushBatch), per URL
  double push_single_ns = 0;  // one Push call per URL
  double wrongly_dropped_rate = 0;
  double disk_bytes_per_url = 0;
  uint64_t sample_bytes = 0;   // the Sieve's fp sample (fp_sample.h); 0 when off
  uint64_t sample_one_in = 0;  // its S at the end
};

// Generates URLs [start, start + size) into `urls` and points `views` at
// them; returns their total length.
uint64_t FillChunk(UrlGenerator& generator, uint64_t start, size_t size,
                   std::vector<std::string>& urls, std::vector<std::string_view>& views) {
  uint64_t bytes = 0;
  views.clear();
  for (size_t i = 0; i < size; ++i) {
    generator.Generate(start + i, urls[i]);
    views.push_back(urls[i]);
    bytes += urls[i].size();
  }
  return bytes;
}

// Feeds URLs [0, n) to `consume` in chunks, timing only `consume`.
double TimedFeed(uint64_t n,
                 const std::function<void(const std::vector<std::string_view>&)>& consume,
                 double* mean_length = nullptr) {
  UrlGenerator generator;
  std::vector<std::string> urls(kChunk);
  std::vector<std::string_view> views;
  Clock::duration spent{};
  uint64_t bytes = 0;
  for (uint64_t start = 0; start < n; start += kChunk) {
    const size_t size = static_cast<size_t>(std::min<uint64_t>(kChunk, n - start));
    bytes += FillChunk(generator, start, size, urls, views);
    const Clock::time_point t0 = Clock::now();
    consume(views);
    spent += Clock::now() - t0;
  }
  if (mean_length != nullptr) *mean_length = static_cast<double>(bytes) / static_cast<double>(n);
  return std::chrono::duration<double, std::nano>(spent).count() / static_cast<double>(n);
}

sieve::SieveOptions SieveOptionsFor(uint64_t n) {
  sieve::SieveOptions options;
  const double expected = absl::GetFlag(FLAGS_expected);
  options.expected_count = expected > 0 ? static_cast<uint64_t>(expected) : n;
  options.fp_rate = absl::GetFlag(FLAGS_p);
  options.spill_dir = absl::GetFlag(FLAGS_spill_dir);
  options.fp_sample_max_urls = static_cast<uint64_t>(absl::GetFlag(FLAGS_fp_sample_max_urls));
  return options;
}

// The rate the filter's formula predicts, averaged over a stream of n distinct
// URLs (push j sees FpRateFor(URLs accepted so far)), in steps of n/1000.
double ComputedAverageRate(const sieve::SieveOptions& o, uint64_t n) {
  const bloom::FilterShape shape = *bloom::ShapeFor(o.layout, o.expected_count, o.fp_rate);
  const uint64_t step = std::max<uint64_t>(n / 1000, 1);
  double accepted = 0;
  double dropped = 0;
  for (uint64_t j = 0; j < n; j += step) {
    const double rate = bloom::FpRateFor(o.layout, shape.bits, accepted, shape.hash_count);
    dropped += rate * static_cast<double>(step);
    accepted += (1 - rate) * static_cast<double>(step);
  }
  return dropped / static_cast<double>(n);
}

// Measured (the Sieve's exact sample) vs computed (the formula, averaged over
// the stream) vs true (every generated URL is distinct, so every drop is a
// false positive) at p, on n URLs into a Sieve sized for n.
void PrintFpRow(uint64_t n, double p) {
  sieve::SieveOptions options = SieveOptionsFor(n);
  options.expected_count = n;
  options.fp_rate = p;
  auto sieve = *sieve::Sieve::Create(options);
  TimedFeed(n, [&](const std::vector<std::string_view>& urls) { sieve->PushBatch(urls); });
  const sieve::SieveStats stats = sieve->Stats();
  const double truth = static_cast<double>(n - stats.accepted) / static_cast<double>(n);
  if (!stats.fp_measured) {
    std::printf("| %-6g | %11lu | (no sample: %s) |\n", p, static_cast<unsigned long>(n),
                stats.fp_measured_unknown.c_str());
    return;
  }
  const sieve::MeasuredFpRate& m = *stats.fp_measured;
  std::printf(
      "| %-6g | %11lu | %6lu | %7lu | %5lu | %.3e [%.3e, %.3e] | %.3e | %.3e | %8.0f [%.0f, %.0f] "
      "| %8lu | %6.2f |\n",
      p, static_cast<unsigned long>(n), static_cast<unsigned long>(m.sample_one_in),
      static_cast<unsigned long>(m.sampled_new),
      static_cast<unsigned long>(m.sampled_false_positives), m.rate, m.rate_low, m.rate_high,
      ComputedAverageRate(options, n), truth, m.wrongly_dropped, m.wrongly_dropped_low,
      m.wrongly_dropped_high, static_cast<unsigned long>(n - stats.accepted),
      static_cast<double>(m.sample_bytes) / (1 << 20));
}

void PrintFpRows(uint64_t n) {
  std::printf(
      "\nmeasured vs computed false-positive rate, %lu distinct URLs into a Sieve sized for them "
      "(SieveOptions::fp_sample_max_urls = %.0f):\n"
      "| p      | N           | S      | sampled | f     | measured [95%%]                  "
      "| computed  | true      | lost, estimated [95%%] | lost     | sample MiB |\n"
      "|--------|-------------|--------|---------|-------|----------------------------------"
      "|-----------|-----------|------------------------|----------|------------|\n",
      static_cast<unsigned long>(n), absl::GetFlag(FLAGS_fp_sample_max_urls));
  for (double p : {0.01, 0.0001}) PrintFpRow(n, p);
}

double MedianOf(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

// One round of the fp sample's A/B (PrintSampleCost): per-URL push times,
// summed and of the median chunk, of A (with the sample) and B (without).
struct SampleCostRound {
  double sum_a = 0;
  double sum_b = 0;
  double chunk_a = 0;
  double chunk_b = 0;
  double chunk_ratio = 0;  // median of the chunks' A/B
  double sample_mib = 0;
  uint64_t sample_one_in = 0;
};

// Two Sieves alike but for the sample (A: fp_sample_max_urls as given, or its
// default when the flag is 0; B: none) take the same n URLs, chunk by chunk,
// each chunk timed on both, the one that goes first alternating (the second
// finds the chunk's strings in cache). The two filters take the same
// decisions, so their queues spill at the same chunks.
SampleCostRound RunSampleCostRound(uint64_t n) {
  sieve::SieveOptions with = SieveOptionsFor(n);
  if (with.fp_sample_max_urls == 0)
    with.fp_sample_max_urls = sieve::SieveOptions{}.fp_sample_max_urls;
  sieve::SieveOptions without = with;
  without.fp_sample_max_urls = 0;
  std::unique_ptr<sieve::Sieve> sieves[2] = {*sieve::Sieve::Create(with),
                                             *sieve::Sieve::Create(without)};
  UrlGenerator generator;
  std::vector<std::string> urls(kChunk);
  std::vector<std::string_view> views;
  double spent[2] = {0, 0};
  std::vector<double> per_url[2];
  std::vector<double> ratios;
  for (uint64_t start = 0; start < n; start += kChunk) {
    const size_t size = static_cast<size_t>(std::min<uint64_t>(kChunk, n - start));
    FillChunk(generator, start, size, urls, views);
    double took[2];
    const int first = (start / kChunk) % 2;
    for (int side : {first, 1 - first}) {
      const Clock::time_point t0 = Clock::now();
      sieves[side]->PushBatch(views);
      took[side] = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
      spent[side] += took[side];
      per_url[side].push_back(took[side] / static_cast<double>(size));
    }
    ratios.push_back(took[0] / took[1]);
  }
  const sieve::SieveStats a = sieves[0]->Stats();
  if (a.accepted != sieves[1]->Stats().accepted) {
    std::fprintf(stderr, "sample cost: the two Sieves accepted different URLs\n");
    std::exit(1);
  }
  SampleCostRound round;
  round.sum_a = spent[0] / static_cast<double>(n);
  round.sum_b = spent[1] / static_cast<double>(n);
  round.chunk_a = MedianOf(per_url[0]);
  round.chunk_b = MedianOf(per_url[1]);
  round.chunk_ratio = MedianOf(ratios);
  if (a.fp_measured) {
    round.sample_mib = static_cast<double>(a.fp_measured->sample_bytes) / (1 << 20);
    round.sample_one_in = a.fp_measured->sample_one_in;
  }
  return round;
}

// The fp sample's cost per push, A/B inside one process (RunSampleCostRound):
// machine noise lands on both sides of a chunk alike, which whole-process
// runs cannot give on a shared machine. Each round is a fresh pair; the ratio
// A/B of its summed push times is one figure, and the median of its chunks'
// ratios another, which the chunks where the queue seals and compresses a
// segment (most of the summed time) do not move.
void PrintSampleCost(uint64_t n, int rounds) {
  std::printf(
      "\nthe fp sample's push cost, in-process A/B (%lu URLs into a Sieve sized for them, "
      "PushBatch of %zu; A with the sample, B without; alternating order per chunk):\n"
      "| round | A ns/URL | B ns/URL | A/B   | median chunk: A ns/URL | B ns/URL | A/B of chunks, "
      "median | A sample MiB | A's S  |\n"
      "|-------|----------|----------|-------|------------------------|----------|-------------"
      "--------|--------------|--------|\n",
      static_cast<unsigned long>(n), kChunk);
  std::vector<double> sum_ratios;
  std::vector<double> chunk_ratios;
  for (int i = 0; i < rounds; ++i) {
    const SampleCostRound r = RunSampleCostRound(n);
    sum_ratios.push_back(r.sum_a / r.sum_b);
    chunk_ratios.push_back(r.chunk_ratio);
    std::printf("| %5d | %8.1f | %8.1f | %.3f | %22.1f | %8.1f | %19.3f | %12.2f | %6lu |\n", i + 1,
                r.sum_a, r.sum_b, r.sum_a / r.sum_b, r.chunk_a, r.chunk_b, r.chunk_ratio,
                r.sample_mib, static_cast<unsigned long>(r.sample_one_in));
  }
  if (sum_ratios.empty()) return;
  std::sort(sum_ratios.begin(), sum_ratios.end());
  std::sort(chunk_ratios.begin(), chunk_ratios.end());
  std::printf(
      "A/B over %d rounds, summed time: min %.3f, median %.3f, max %.3f; "
      "median chunk: min %.3f, median %.3f, max %.3f\n",
      rounds, sum_ratios.front(), MedianOf(sum_ratios), sum_ratios.back(), chunk_ratios.front(),
      MedianOf(chunk_ratios), chunk_ratios.back());
}

// The seen-set alone: the Sieve's filter, built as Sieve::Create builds it,
// measured by the RSS its own mapping adds. A first chunk is generated before
// the baseline is read, and heap growth during the pass is subtracted, so
// that only the filter's pages count.
double SieveSeenBytes(uint64_t n) {
  const sieve::SieveOptions options = SieveOptionsFor(n);
  TimedFeed(kChunk, [](const std::vector<std::string_view>&) {});  // warm the heap
  // Return memory freed by earlier runs to the kernel first, or its release
  // during this pass would be subtracted from the filter's pages.
  malloc_trim(0);
  const int64_t rss0 = ResidentBytes();
  const int64_t heap0 = HeapInUseBytes();
  absl::StatusOr<bloom::BloomFilter> filter = bloom::BloomFilter::Create(
      {options.expected_count, options.fp_rate, options.layout, options.huge_pages});
  if (!filter.ok()) {
    std::fprintf(stderr, "filter: %s\n", filter.status().ToString().c_str());
    std::exit(1);
  }
  TimedFeed(n, [&](const std::vector<std::string_view>& urls) {
    bool out[kChunk];
    filter->InsertIfNewBatch(absl::MakeConstSpan(urls), absl::MakeSpan(out, urls.size()));
  });
  const int64_t heap_growth = std::max<int64_t>(HeapInUseBytes() - heap0, 0);
  malloc_trim(0);
  return static_cast<double>(ResidentBytes() - rss0 - heap_growth);
}

std::unique_ptr<sieve::Sieve> MakeSieve(uint64_t n) {
  absl::StatusOr<std::unique_ptr<sieve::Sieve>> sieve = sieve::Sieve::Create(SieveOptionsFor(n));
  if (!sieve.ok()) {
    std::fprintf(stderr, "sieve: %s\n", sieve.status().ToString().c_str());
    std::exit(1);
  }
  return *std::move(sieve);
}

Row RunSieve(uint64_t n, double* mean_length) {
  Row row{"sieve", n, absl::GetFlag(FLAGS_p)};
  const double seen = SieveSeenBytes(n);
  row.seen_bytes_per_url = seen / static_cast<double>(n);
  {
    const int64_t heap0 = HeapInUseBytes();
    auto sieve = MakeSieve(n);
    row.push_ns = TimedFeed(
        n, [&](const std::vector<std::string_view>& urls) { sieve->PushBatch(urls); }, mean_length);
    const sieve::SieveStats stats = sieve->Stats();
    // Heap: the queue's in-memory segments and the Sieve's own state; plus
    // the filter's resident mapping measured above.
    row.total_bytes_per_url =
        (static_cast<double>(HeapInUseBytes() - heap0) + seen) / static_cast<double>(n);
    row.wrongly_dropped_rate = static_cast<double>(n - stats.accepted) / static_cast<double>(n);
    row.disk_bytes_per_url = static_cast<double>(stats.queue_disk_bytes) / static_cast<double>(n);
    if (stats.fp_measured) {
      row.sample_bytes = stats.fp_measured->sample_bytes;
      row.sample_one_in = stats.fp_measured->sample_one_in;
    }
  }
  if (static_cast<double>(n) <= absl::GetFlag(FLAGS_baseline_max)) {
    auto sieve = MakeSieve(n);
    row.push_single_ns = TimedFeed(n, [&](const std::vector<std::string_view>& urls) {
      for (std::string_view url : urls) sieve->Push(url);
    });
  }
  return row;
}

template <typename Set>
Row RunBaseline(const char* name, uint64_t n) {
  Row row{name, n, 0};
  {
    const int64_t heap0 = HeapInUseBytes();
    Set seen;
    TimedFeed(n, [&](const std::vector<std::string_view>& urls) {
      for (std::string_view url : urls) seen.emplace(url);
    });
    row.seen_bytes_per_url = static_cast<double>(HeapInUseBytes() - heap0) / static_cast<double>(n);
    if (seen.size() != n) std::fprintf(stderr, "warning: %zu distinct of %lu\n", seen.size(), n);
  }
  {
    const int64_t heap0 = HeapInUseBytes();
    HashSetQueue<Set> queue;
    row.push_ns = TimedFeed(n, [&](const std::vector<std::string_view>& urls) {
      for (std::string_view url : urls) queue.Push(url);
    });
    row.push_single_ns = row.push_ns;
    row.total_bytes_per_url =
        static_cast<double>(HeapInUseBytes() - heap0) / static_cast<double>(n);
  }
  return row;
}

void PrintJson(const Row& r) {
  std::printf(
      "{\"impl\": \"%s\", \"urls\": %lu, \"p\": %g, \"seen_bytes_per_url\": %.3f, "
      "\"total_bytes_per_url\": %.3f, \"push_ns\": %.1f, \"push_single_ns\": %.1f, "
      "\"wrongly_dropped_rate\": %.6f, \"disk_bytes_per_url\": %.2f}\n",
      r.impl.c_str(), static_cast<unsigned long>(r.urls), r.p, r.seen_bytes_per_url,
      r.total_bytes_per_url, r.push_ns, r.push_single_ns, r.wrongly_dropped_rate,
      r.disk_bytes_per_url);
  std::fflush(stdout);
}

void PrintRow(const Row& r) {
  char dropped[32] = "-";
  if (r.impl == "sieve") {
    std::snprintf(dropped, sizeof dropped, "%.5f (%.2fp)", r.wrongly_dropped_rate,
                  r.wrongly_dropped_rate / r.p);
  }
  std::printf("| %-13s | %11lu | %10.2f | %10.2f | %9.2f | %8.1f | %8.1f | %-17s |\n",
              r.impl.c_str(), static_cast<unsigned long>(r.urls), r.seen_bytes_per_url,
              r.total_bytes_per_url, r.disk_bytes_per_url, r.push_ns, r.push_single_ns, dropped);
  std::fflush(stdout);
}

void PrintSetup(double p) {
#ifndef __OPTIMIZE__
  std::printf("WARNING: built without optimization (%s): timings are meaningless\n",
              CRAWL_BUILD_TYPE);
#endif
  std::printf("sieve-bench (%s build): N distinct generated URLs, one thread, p = %g\n",
              CRAWL_BUILD_TYPE, p);
  std::printf(
      "memory: hash sets and queues by malloc statistics (mallinfo2 in-use delta);\n"
      "        the Sieve's filter (its own mmap) by VmRSS delta; the Sieve's queue\n"
      "        spills to disk past 64 MiB (disk B/URL column)\n");
  std::printf(
      "theory: classic Bloom filter needs -ln p / (ln 2)^2 = %.2f bits = %.3f bytes "
      "per URL at p = %g;\n        the blocked layout ~10%% more (bloom/params.h)\n",
      bloom::ClassicBitsPerKey(p), bloom::ClassicBitsPerKey(p) / 8, p);
  for (double rate : {0.01, 0.0001}) {
    absl::StatusOr<bloom::FilterShape> shape =
        bloom::ShapeFor(bloom::Layout::kBlocked, 1'000'000'000, rate);
    if (shape.ok()) {
      std::printf(
          "computed: a Sieve for --expected 1e9 at p = %g needs a %.2f GB filter "
          "(%.2f bits/URL, k = %u)\n",
          rate, static_cast<double>(shape->MemoryBytes()) / 1e9,
          static_cast<double>(shape->bits) / 1e9, shape->hash_count);
    }
  }
  std::printf(
      "\n| impl          |        urls | seen B/URL | total B/URL | disk B/URL | push ns | "
      "1-push ns | wrongly dropped   |\n"
      "|---------------|-------------|------------|-------------|------------|---------|"
      "-----------|-------------------|\n");
}

void Plot(const std::vector<Row>& rows, const std::string& png) {
  const std::filesystem::path data =
      std::filesystem::temp_directory_path() / "sieve-bench-plot.dat";
  FILE* out = std::fopen(data.c_str(), "w");
  if (out == nullptr) return;
  for (const char* impl : {"sieve", "unordered_set", "flat_hash_set"}) {
    std::fprintf(out, "\"%s\"\n", impl);
    for (const Row& r : rows) {
      if (r.impl == impl) {
        std::fprintf(out, "%lu %f %f\n", static_cast<unsigned long>(r.urls),
                     r.total_bytes_per_url * static_cast<double>(r.urls) / 1048576.0,
                     r.seen_bytes_per_url * static_cast<double>(r.urls) / 1048576.0);
      }
    }
    std::fprintf(out, "\n\n");
  }
  std::fclose(out);
  FILE* gp = popen("gnuplot", "w");
  if (gp == nullptr) {
    std::fprintf(stderr, "cannot run gnuplot\n");
    return;
  }
  std::fprintf(
      gp,
      "set terminal pngcairo size 900,560 noenhanced\nset output '%s'\n"
      "set title 'Memory against N (p = %g): seen-set alone (dashed), with queue (solid)'\n"
      "set logscale xy\nset offsets graph 0.05, graph 0.05, 0, 0\nset xlabel 'distinct URLs pushed "
      "(N)'\n"
      "set ylabel 'MiB'\nset key top left\nset grid\n"
      "plot for [i=0:2] '%s' index i using 1:2 with linespoints lw 2 lc i+1 "
      "title columnheader(1).' + queue', "
      "for [i=0:2] '%s' index i using 1:3 with linespoints dt 2 lc i+1 "
      "title columnheader(1).' seen-set'\n",
      png.c_str(), rows.empty() ? 0.01 : rows.front().p, data.c_str(), data.c_str());
  if (pclose(gp) != 0) std::fprintf(stderr, "gnuplot failed\n");
}

// Reads rows in the exact format PrintJson writes.
std::vector<Row> ReadJsonRows(const std::string& path) {
  std::vector<Row> rows;
  FILE* in = std::fopen(path.c_str(), "r");
  if (in == nullptr) return rows;
  char line[1024];
  char impl[64];
  while (std::fgets(line, sizeof line, in) != nullptr) {
    Row r;
    unsigned long urls = 0;
    if (std::sscanf(line,
                    "{\"impl\": \"%63[^\"]\", \"urls\": %lu, \"p\": %lf, "
                    "\"seen_bytes_per_url\": %lf, \"total_bytes_per_url\": %lf, \"push_ns\": "
                    "%lf, \"push_single_ns\": %lf, \"wrongly_dropped_rate\": %lf, "
                    "\"disk_bytes_per_url\": %lf}",
                    impl, &urls, &r.p, &r.seen_bytes_per_url, &r.total_bytes_per_url, &r.push_ns,
                    &r.push_single_ns, &r.wrongly_dropped_rate, &r.disk_bytes_per_url) == 9) {
      r.impl = impl;
      r.urls = urls;
      rows.push_back(r);
    }
  }
  std::fclose(in);
  return rows;
}

// The cost of priority lanes: the same n URLs pushed (PushBatch of kChunk)
// with no priorities, all at 0 (one lane, through the priorities' path), and
// spread round-robin over 16 and 1,024 lanes, then popped (TryPopEntry +
// MarkDone) to the end; the configurations alternate within each round so
// the machine's noise falls on all of them. Medians over the rounds.
void PrintLaneCost(uint64_t n, int rounds, const std::vector<int>& lane_counts) {
  const size_t kConfigs = lane_counts.size();
  auto name = [&](size_t c) {
    const int lanes = lane_counts[c];
    if (lanes == 0) return std::string("no priorities");
    return std::to_string(lanes) + (lanes == 1 ? " lane" : " lanes");
  };
  std::vector<std::vector<double>> push(kConfigs), pop(kConfigs), memory(kConfigs), disk(kConfigs),
      files(kConfigs);
  for (int round = 0; round < rounds; ++round) {
    for (size_t c = 0; c < kConfigs; ++c) {
      auto sieve = MakeSieve(n);
      std::vector<int32_t> priorities(kChunk);
      uint64_t next = 0;
      push[c].push_back(TimedFeed(n, [&](const std::vector<std::string_view>& urls) {
        if (lane_counts[c] == 0) {
          sieve->PushBatch(urls);
          return;
        }
        for (size_t i = 0; i < urls.size(); ++i) {
          priorities[i] = static_cast<int32_t>((next + i) % lane_counts[c]);
        }
        next += urls.size();
        sieve->PushBatch(urls, {}, absl::MakeConstSpan(priorities.data(), urls.size()), {});
      }));
      const sieve::SieveStats stats = sieve->Stats();
      memory[c].push_back(static_cast<double>(stats.queue_memory_bytes) / (1 << 20));
      disk[c].push_back(static_cast<double>(stats.queue_disk_bytes) / static_cast<double>(n));
      files[c].push_back(static_cast<double>(stats.spilled_segments));
      const Clock::time_point t0 = Clock::now();
      uint64_t popped = 0;
      while (std::optional<sieve::SieveEntry> entry = sieve->TryPopEntry()) {
        sieve->MarkDone(entry->url);
        ++popped;
      }
      pop[c].push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count() /
                       static_cast<double>(std::max<uint64_t>(popped, 1)));
    }
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  const double push0 = median(push[0]);
  const double pop0 = median(pop[0]);
  std::printf(
      "\nPriority lanes at N = %lu (queue budget 64 MiB; medians of %d rounds, configurations "
      "alternating within each round):\n\n"
      "| lanes | push ns/URL | vs first row | pop ns/URL | vs first row | queue RAM "
      "MiB after the pushes | disk B/URL | spill files after the pushes |\n"
      "|---|---|---|---|---|---|---|---|\n",
      static_cast<unsigned long>(n), rounds);
  for (size_t c = 0; c < kConfigs; ++c) {
    std::printf("| %s | %.1f | %.3f | %.1f | %.3f | %.1f | %.2f | %.0f |\n", name(c).c_str(),
                median(push[c]), median(push[c]) / push0, median(pop[c]), median(pop[c]) / pop0,
                median(memory[c]), median(disk[c]), median(files[c]));
  }
}

int RunHeadlineAt(uint64_t n) {
  HeadlineOptions options;
  options.urls = n;
  options.lanes = absl::GetFlag(FLAGS_headline_lanes);
  const double every = absl::GetFlag(FLAGS_checkpoint_every);
  options.checkpoint_every =
      every > 0 ? static_cast<uint64_t>(every) : std::max<uint64_t>(n / 10, 1);
  const sieve::SieveOptions sieve_options = SieveOptionsFor(n);
  const std::filesystem::path spill_dir = sieve_options.spill_dir.empty()
                                              ? std::filesystem::temp_directory_path()
                                              : sieve_options.spill_dir;
  options.checkpoint_dir = spill_dir / "sieve-headline-checkpoint";
  if (options.lanes < 1 || options.lanes > 1024) {
    std::fprintf(stderr, "--headline_lanes: %d is not in 1..1024\n", options.lanes);
    return 2;
  }
#ifndef __OPTIMIZE__
  std::printf("WARNING: built without optimization (%s): timings are meaningless\n",
              CRAWL_BUILD_TYPE);
#endif
  std::printf("sieve-bench --headline (%s build): p = %g, expected %lu, queue budget %.0f MiB\n",
              CRAWL_BUILD_TYPE, sieve_options.fp_rate,
              static_cast<unsigned long>(sieve_options.expected_count),
              static_cast<double>(sieve_options.queue_memory_budget_bytes) / (1 << 20));
  return RunHeadline(sieve_options, options) ? 0 : 1;
}

int Main() {
  if (!absl::GetFlag(FLAGS_replot).empty()) {
    const std::vector<Row> rows = ReadJsonRows(absl::GetFlag(FLAGS_replot));
    for (const Row& row : rows) PrintRow(row);
    if (!absl::GetFlag(FLAGS_plot).empty()) Plot(rows, absl::GetFlag(FLAGS_plot));
    return rows.empty() ? 1 : 0;
  }
  std::vector<uint64_t> counts;
  for (absl::string_view part : absl::StrSplit(absl::GetFlag(FLAGS_urls), ',')) {
    double value = 0;
    if (!absl::SimpleAtod(part, &value) || value < 1) {
      std::fprintf(stderr, "--urls: bad count '%s'\n", std::string(part).c_str());
      return 2;
    }
    counts.push_back(static_cast<uint64_t>(value));
  }
  if (absl::GetFlag(FLAGS_headline)) return RunHeadlineAt(counts.back());
  const bool json = absl::GetFlag(FLAGS_json);
  if (!json) PrintSetup(absl::GetFlag(FLAGS_p));
  std::vector<Row> rows;
  auto emit = [&](const Row& row) {
    rows.push_back(row);
    json ? PrintJson(row) : PrintRow(row);
  };
  for (uint64_t n : counts) {
    double mean_length = 0;
    emit(RunSieve(n, &mean_length));
    if (!json) {
      std::printf(
          "|               | fp sample: %.2f MiB, 1 URL in %lu (fp_sample_max_urls %.0f) |\n",
          static_cast<double>(rows.back().sample_bytes) / (1 << 20),
          static_cast<unsigned long>(rows.back().sample_one_in),
          absl::GetFlag(FLAGS_fp_sample_max_urls));
    }
    if (static_cast<double>(n) <= absl::GetFlag(FLAGS_baseline_max)) {
      emit(RunBaseline<std::unordered_set<std::string>>("unordered_set", n));
      emit(RunBaseline<absl::flat_hash_set<std::string>>("flat_hash_set", n));
    }
    if (!json) std::printf("|               | mean URL length %.1f bytes |\n", mean_length);
  }
  if (!absl::GetFlag(FLAGS_plot).empty()) Plot(rows, absl::GetFlag(FLAGS_plot));
  const int rounds = absl::GetFlag(FLAGS_sample_cost_rounds);
  if (!json && rounds > 0) PrintSampleCost(counts.back(), rounds);
  if (!json && absl::GetFlag(FLAGS_fp_rows)) PrintFpRows(counts.back());
  const int lane_rounds = absl::GetFlag(FLAGS_lane_rounds);
  if (!json && lane_rounds > 0) {
    std::vector<int> lane_counts;
    for (absl::string_view part : absl::StrSplit(absl::GetFlag(FLAGS_lane_counts), ',')) {
      int lanes = 0;
      if (!absl::SimpleAtoi(part, &lanes) || lanes < 0 || lanes > 1024) {
        std::fprintf(stderr, "--lane_counts: bad number of lanes '%s' (0 to 1024)\n",
                     std::string(part).c_str());
        return 2;
      }
      lane_counts.push_back(lanes);
    }
    PrintLaneCost(counts.back(), lane_rounds, lane_counts);
  }
  return 0;
}

}  // namespace
}  // namespace sieve_bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return sieve_bench::Main();
}
