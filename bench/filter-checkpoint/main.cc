// filter-checkpoint-bench: what a Sieve checkpoint's filter part costs when it
// writes deltas of the changed 64-byte blocks (sieve/src/filter_checkpoint.h)
// instead of the whole filter: the first checkpoint of a fresh filter, a
// checkpoint after 1e5, 1e6 and 1e7 inserts since the previous one, and the
// time to open the chain (base + deltas). Prints the theory beside each row:
// a delta is 64 + 68 * dirty blocks + 8 bytes, and after x new keys in a
// blocked filter of B blocks about B (1 - exp(-x / B)) blocks are dirty.
//
//   filter-checkpoint-bench --expected=1e9 --steps=100000,1000000,10000000
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "filter_checkpoint.h"
#include "seen_filter.h"

ABSL_FLAG(double, expected, 1e9, "n: the filter is sized for this many URLs");
ABSL_FLAG(double, p, 0.01, "target false-positive rate");
ABSL_FLAG(std::string, steps, "100000,1000000,10000000",
          "inserts between checkpoints, per row group");
ABSL_FLAG(int, repeats, 3, "checkpoints per step (the median is summarized)");
ABSL_FLAG(std::string, dir, "",
          "where the checkpoint files go (default: a folder in the temp dir)");

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using sieve::internal::FilterChain;
using sieve::internal::FilterFiles;
using sieve::internal::SeenFilter;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// CPU seconds of this thread: on a shared, loaded machine the wall time of a
// save is mostly waiting for a core or the disk; this is its own work.
double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

uint64_t SplitMix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Keys as their hashes (random 128-bit values): the filter's work without
// the URL hashing, which a checkpoint does not change.
void Insert(SeenFilter& filter, uint64_t& next_key, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i, ++next_key) {
    filter.InsertIfNew(bloom::Hash128{SplitMix(2 * next_key), SplitMix(2 * next_key + 1)});
  }
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Row {
  uint64_t inserts = 0;
  double save_s = 0;
  double save_cpu_s = 0;
  double written_mb = 0;
  double changed_mb = 0;
  bool base = false;
};

int Run() {
  sieve::SieveOptions options;
  options.expected_count = static_cast<uint64_t>(absl::GetFlag(FLAGS_expected));
  options.fp_rate = absl::GetFlag(FLAGS_p);
  fs::path dir = absl::GetFlag(FLAGS_dir);
  if (dir.empty()) dir = fs::temp_directory_path() / "filter-checkpoint-bench";
  fs::remove_all(dir);

  Clock::time_point start = Clock::now();
  absl::StatusOr<SeenFilter> filter = SeenFilter::Create(options);
  if (!filter.ok()) {
    std::fprintf(stderr, "filter-checkpoint-bench: %s\n", filter.status().ToString().c_str());
    return 2;
  }
  const double create_s = Seconds(start);
  const uint64_t blocks = filter->MemoryBytes() / 64;
  std::printf(
      "filter-checkpoint-bench: n=%.3g p=%g blocked, filter %.1f MB (%llu blocks), dir %s\n",
      static_cast<double>(options.expected_count), options.fp_rate, filter->MemoryBytes() / 1e6,
      static_cast<unsigned long long>(blocks), dir.c_str());
  std::printf("build type %s%s\n", CRAWL_BUILD_TYPE,
              std::string(CRAWL_BUILD_TYPE) == "Debug" ? " (WARNING: unoptimized)" : "");

  FilterChain chain;
  start = Clock::now();
  absl::StatusOr<FilterFiles> files = SaveFilterCheckpoint(*filter, dir, chain);
  if (!files.ok()) {
    std::fprintf(stderr, "filter-checkpoint-bench: %s\n", files.status().ToString().c_str());
    return 1;
  }
  std::printf("create filter %.4f s; first checkpoint of the fresh filter %.4f s, %llu bytes\n\n",
              create_s, Seconds(start), static_cast<unsigned long long>(files->written_bytes));

  std::printf("%12s %8s %10s %10s %10s %8s %6s %9s %8s %8s\n", "inserts", "insert s", "dirty blk",
              "theory blk", "changed MB", "written", "kind", "written/", "save s", "save cpu");
  std::printf("%12s %8s %10s %10s %10s %8s %6s %9s %8s %8s\n", "since prev", "", "", "", "", "MB",
              "", "changed", "(wall)", "s");
  std::vector<Row> rows;
  uint64_t next_key = 0;
  auto open_row = [&](const char* what) {
    Clock::time_point t = Clock::now();
    const double cpu = ThreadCpuSeconds();
    absl::StatusOr<SeenFilter> loaded =
        sieve::internal::LoadFilterCheckpoint(options.overflow_policy, dir, *files, nullptr);
    const double open_s = Seconds(t);
    const double open_cpu_s = ThreadCpuSeconds() - cpu;
    uint64_t bytes = 0;
    for (const auto& f : files->files) bytes += f.bytes;
    if (!loaded.ok()) {
      std::printf("open failed: %s\n", loaded.status().ToString().c_str());
      return;
    }
    bool same = loaded->EstimatedCount() == filter->EstimatedCount();
    for (uint64_t k = 0; k < next_key; k += 9973) {
      same = same &&
             loaded->InsertIfNew(bloom::Hash128{SplitMix(2 * k), SplitMix(2 * k + 1)}) == false;
    }
    std::printf("open %s: %zu files, %.1f MB, %.2f s (%.3f s cpu) (%s)\n", what,
                files->files.size(), bytes / 1e6, open_s, open_cpu_s,
                same ? "same estimate, every sampled key present" : "MISMATCH");
  };

  for (absl::string_view step_text : absl::StrSplit(absl::GetFlag(FLAGS_steps), ',')) {
    uint64_t step = 0;
    if (!absl::SimpleAtoi(step_text, &step)) return 2;
    for (int r = 0; r < absl::GetFlag(FLAGS_repeats); ++r) {
      Clock::time_point t = Clock::now();
      Insert(*filter, next_key, step);
      const double insert_s = Seconds(t);
      const uint64_t dirty = filter->fixed()->DirtyBlockCount();
      const double theory = blocks * -std::expm1(-static_cast<double>(step) / blocks);
      t = Clock::now();
      const double cpu = ThreadCpuSeconds();
      files = SaveFilterCheckpoint(*filter, dir, chain);
      Row row{step, Seconds(t), ThreadCpuSeconds() - cpu, 0, dirty * 64 / 1e6, false};
      if (!files.ok()) {
        std::fprintf(stderr, "filter-checkpoint-bench: %s\n", files.status().ToString().c_str());
        return 1;
      }
      if (absl::Status s = sieve::internal::RemoveUnreferencedFilterFiles(dir, *files); !s.ok()) {
        std::fprintf(stderr, "filter-checkpoint-bench: %s\n", s.ToString().c_str());
      }
      row.written_mb = files->written_bytes / 1e6;
      row.base = files->files.size() == 1 && files->files[0].name.ends_with(".base");
      rows.push_back(row);
      std::printf("%12llu %8.2f %10llu %10.0f %10.1f %8.1f %6s %9.3f %8.2f %8.3f\n",
                  static_cast<unsigned long long>(step), insert_s,
                  static_cast<unsigned long long>(dirty), theory, row.changed_mb, row.written_mb,
                  row.base ? "base" : "delta", row.written_mb / std::max(row.changed_mb, 1e-9),
                  row.save_s, row.save_cpu_s);
      std::fflush(stdout);
    }
    open_row(absl::StrCat("after the ", step, "-insert checkpoints").c_str());
  }

  std::printf("\nmedian save time per step (delta checkpoints only):\n");
  for (absl::string_view step_text : absl::StrSplit(absl::GetFlag(FLAGS_steps), ',')) {
    uint64_t step = 0;
    absl::SimpleAtoi(step_text, &step);
    std::vector<double> times, cpu, written;
    for (const Row& row : rows) {
      if (row.inserts != step || row.base) continue;
      times.push_back(row.save_s);
      cpu.push_back(row.save_cpu_s);
      written.push_back(row.written_mb);
    }
    std::printf("  %12llu inserts: %.3f s wall, %.3f s cpu, %.1f MB (%zu checkpoints)\n",
                static_cast<unsigned long long>(step), Median(times), Median(cpu), Median(written),
                times.size());
  }

  Clock::time_point t = Clock::now();
  const double cpu = ThreadCpuSeconds();
  FilterChain whole;  // an empty chain on a filter not tracked from empty: a base
  filter->set_tracked_from_empty(false);
  files = SaveFilterCheckpoint(*filter, dir / "whole", whole);
  if (files.ok()) {
    std::printf(
        "a full image (every checkpoint's filter cost before): %.1f MB in %.2f s (%.3f s cpu)\n",
        files->written_bytes / 1e6, Seconds(t), ThreadCpuSeconds() - cpu);
  }
  fs::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return Run();
}
