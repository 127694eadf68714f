// bloom-bench: classic vs blocked layout, single vs batched calls, 1 and 2
// threads, side by side with the memory system's limit (--dram).
//
//   build/bin/bloom-bench --n 100000000 --p 0.01          # a table
//   build/bin/bloom-bench --n 1000000 --json              # one JSON object per row
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_split.h"
#include "bloom/params.h"
#include "row.h"

ABSL_FLAG(uint64_t, n, 10'000'000, "keys inserted (the filter is sized for exactly this many)");
ABSL_FLAG(double, p, 0.01, "target false-positive rate");
ABSL_FLAG(bool, json, false, "print one JSON object per row instead of a table");
ABSL_FLAG(bool, dram, true, "add the 'dram' row: random 64-byte reads over a filter-sized buffer");
ABSL_FLAG(uint64_t, queries, 0, "lookups per kind and repeat (0: min(n, 2M))");
ABSL_FLAG(int, repeats, 3, "lookup repeats; the median is reported");
ABSL_FLAG(std::string, threads, "1,2", "thread counts to run, comma separated");
ABSL_FLAG(std::string, layouts, "classic,blocked", "layouts to run");

namespace bloom_bench {
namespace {

std::string TransparentHugePageMode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  return line.empty() ? "unknown" : line;
}

void PrintSetup(uint64_t n, double p, uint64_t queries, int repeats) {
  std::printf("bloom-bench: n=%llu p=%g, %llu lookups x %d repeats per kind (median)\n",
              static_cast<unsigned long long>(n), p, static_cast<unsigned long long>(queries),
              repeats);
  std::printf("build type %s; THP %s\n", CRAWL_BUILD_TYPE, TransparentHugePageMode().c_str());
  if (std::string(CRAWL_BUILD_TYPE) == "Debug" || std::string(CRAWL_BUILD_TYPE).empty()) {
    std::printf("WARNING: built without optimization; numbers are meaningless\n");
  }
  for (bloom::Layout layout : {bloom::Layout::kClassic, bloom::Layout::kBlocked}) {
    absl::StatusOr<bloom::FilterShape> s = bloom::ShapeFor(layout, n, p);
    if (!s.ok()) continue;
    std::printf("theory %-7s: m=%llu bits (%.2f bits/key, %.1f MB), k=%u, rate %.5f\n",
                bloom::LayoutName(layout), static_cast<unsigned long long>(s->bits),
                static_cast<double>(s->bits) / static_cast<double>(n), s->MemoryBytes() / 1e6,
                s->hash_count,
                bloom::FpRateFor(layout, s->bits, static_cast<double>(n), s->hash_count));
  }
  std::printf(
      "ns/op: per key, thread CPU time (preemption on a shared machine excluded), all threads\n"
      "together; keys are 47-byte URLs generated outside the timed region; hashing (XXH3-128)\n"
      "is inside it. vs.cls: bits/key over the classic formula's for the measured rate.\n\n");
}

// bits/key relative to the classic formula for the rate actually measured.
double BitsRatio(const RowResult& row) {
  if (row.fpr <= 0) return 0;
  return row.bits_per_key / bloom::ClassicBitsPerKey(row.fpr);
}

void PrintTableHeader() {
  std::printf("%-16s %3s %3s %9s %7s %8s %9s %9s %9s\n", "impl", "thr", "k", "bits/key", "vs.cls",
              "fpr", "insert", "pos", "neg");
}

void PrintTableRow(const RowResult& row) {
  std::printf("%-16s %3d %3u %9.2f %7.3f %8.5f %9.1f %9.1f %9.1f\n", row.impl.c_str(), row.threads,
              row.hash_count, row.bits_per_key, BitsRatio(row), row.fpr, row.insert_ns,
              row.query_pos_ns, row.query_neg_ns);
  std::fflush(stdout);
}

void PrintJsonRow(const RowResult& row) {
  std::printf(
      "{\"impl\":\"%s\",\"n\":%llu,\"p\":%g,\"bits_per_key\":%.4f,\"fpr\":%.6f,"
      "\"insert_ns\":%.2f,\"query_pos_ns\":%.2f,\"query_neg_ns\":%.2f,\"threads\":%d,"
      "\"hash_count\":%u,\"bits_vs_classic_formula\":%.4f}\n",
      row.impl.c_str(), static_cast<unsigned long long>(row.n), row.p, row.bits_per_key, row.fpr,
      row.insert_ns, row.query_pos_ns, row.query_neg_ns, row.threads, row.hash_count,
      BitsRatio(row));
  std::fflush(stdout);
}

const RowResult* Find(const std::vector<RowResult>& rows, const std::string& impl) {
  for (const RowResult& row : rows) {
    if (row.impl == impl && row.threads == 1) return &row;
  }
  return nullptr;
}

// The targets at one thread, from the rows measured.
void PrintTargets(const std::vector<RowResult>& rows) {
  const RowResult* dram = Find(rows, "dram");
  const RowResult* blocked_batched = Find(rows, "blocked-batched");
  const RowResult* blocked = Find(rows, "blocked-single");
  const RowResult* classic = Find(rows, "classic-single");
  std::printf("\ntargets (1 thread):\n");
  if (dram && blocked_batched) {
    std::printf("  blocked batched negative lookup / dram read: %.2fx (target <= 2)\n",
                blocked_batched->query_neg_ns / dram->query_neg_ns);
  }
  if (blocked && classic) {
    std::printf(
        "  classic/blocked single: insert %.2fx, positive %.2fx (target >= 3), "
        "negative %.2fx (target > 1)\n",
        classic->insert_ns / blocked->insert_ns, classic->query_pos_ns / blocked->query_pos_ns,
        classic->query_neg_ns / blocked->query_neg_ns);
  }
  const RowResult* classic_batched = Find(rows, "classic-batched");
  if (blocked_batched && classic_batched) {
    std::printf("  classic/blocked batched: insert %.2fx, positive %.2fx, negative %.2fx\n",
                classic_batched->insert_ns / blocked_batched->insert_ns,
                classic_batched->query_pos_ns / blocked_batched->query_pos_ns,
                classic_batched->query_neg_ns / blocked_batched->query_neg_ns);
  }
  if (blocked) {
    std::printf(
        "  blocked bits/key vs classic formula at the measured rate: %.3fx (target <= "
        "1.25)\n",
        BitsRatio(*blocked));
  }
}

int Run() {
  RowSetup base;
  base.n = absl::GetFlag(FLAGS_n);
  base.p = absl::GetFlag(FLAGS_p);
  base.repeats = std::max(1, absl::GetFlag(FLAGS_repeats));
  base.queries = absl::GetFlag(FLAGS_queries);
  if (base.queries == 0) base.queries = std::min<uint64_t>(base.n, 2'000'000);
  const bool json = absl::GetFlag(FLAGS_json);
  if (!bloom::ShapeFor(base.layout, base.n, base.p).ok()) {
    std::fprintf(stderr, "bloom-bench: invalid --n/--p: %s\n",
                 bloom::ShapeFor(base.layout, base.n, base.p).status().ToString().c_str());
    return 2;
  }
  if (!json) {
    PrintSetup(base.n, base.p, base.queries, base.repeats);
    PrintTableHeader();
  }
  std::vector<RowResult> rows;
  auto emit = [&](const RowResult& row) {
    rows.push_back(row);
    json ? PrintJsonRow(row) : PrintTableRow(row);
  };
  if (absl::GetFlag(FLAGS_dram)) {
    const uint64_t bytes = bloom::BlockedShape(base.n, base.p)->MemoryBytes();
    emit(RunDramRow(bytes, base.queries, base.repeats, base.n, base.p));
  }
  for (absl::string_view layout_name : absl::StrSplit(absl::GetFlag(FLAGS_layouts), ',')) {
    RowSetup setup = base;
    setup.layout = layout_name == "classic" ? bloom::Layout::kClassic : bloom::Layout::kBlocked;
    std::vector<RowSetup> setups;
    for (bool batched : {false, true}) {
      for (absl::string_view threads : absl::StrSplit(absl::GetFlag(FLAGS_threads), ',')) {
        setup.batched = batched;
        setup.threads = std::max(1, std::atoi(std::string(threads).c_str()));
        setups.push_back(setup);
      }
    }
    for (const RowResult& row : RunLayoutRows(setups)) emit(row);
  }
  if (!json) PrintTargets(rows);
  return 0;
}

}  // namespace
}  // namespace bloom_bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return bloom_bench::Run();
}
