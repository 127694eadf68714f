// bloom-bench: classic vs blocked layout, single vs batched calls (string keys,
// and pre-hashed keys), 1 and 2 threads, side by side with the memory system's
// limits (--dram: dependent, independent and prefetched random reads) and the
// cost of hashing alone.
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
ABSL_FLAG(bool, dram, true,
          "add the 'dram-dep', 'dram', 'dram-pf' rows (random 64-byte reads over a filter-sized "
          "buffer: dependent, independent, prefetched) and the 'hash' row");
ABSL_FLAG(bool, hashed, true, "add '<layout>-batched-hashed' rows: batches of pre-hashed keys");
ABSL_FLAG(uint64_t, queries, 0, "lookups per kind and repeat (0: min(n, 2M))");
ABSL_FLAG(int, repeats, 3, "lookup repeats; the median is reported");
ABSL_FLAG(std::string, threads, "1,2", "thread counts to run, comma separated");
ABSL_FLAG(std::string, layouts, "classic,blocked", "layouts to run");
ABSL_FLAG(bool, dirty_tracking, false,
          "track changed 64-byte blocks during the inserts (the cost a checkpointing Sieve pays)");

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
      "is inside it, except in the -batched-hashed rows ('hash' = hashing alone).\n"
      "dram-dep: dependent random reads (latency); dram: independent reads; dram-pf: independent\n"
      "reads prefetched 32 ahead like the filter's batches. vs.cls: bits/key over the classic\n"
      "formula's for the measured rate.\n\n");
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
      "\"hash_count\":%u,\"bits_vs_classic_formula\":%.4f,\"anon_huge_mb\":%.1f}\n",
      row.impl.c_str(), static_cast<unsigned long long>(row.n), row.p, row.bits_per_key, row.fpr,
      row.insert_ns, row.query_pos_ns, row.query_neg_ns, row.threads, row.hash_count,
      BitsRatio(row), row.anon_huge_mb);
  std::fflush(stdout);
}

const RowResult* Find(const std::vector<RowResult>& rows, const std::string& impl) {
  for (const RowResult& row : rows) {
    if (row.impl == impl && row.threads == 1) return &row;
  }
  return nullptr;
}

void PrintRatio(const char* what, const RowResult* a, const RowResult* b, double a_ns, double b_ns,
                const char* target) {
  if (a == nullptr || b == nullptr || b_ns <= 0) return;
  std::printf("  %-58s %6.2fx %s\n", what, a_ns / b_ns, target);
}

// Pre-hashed blocked batches prefetch like dram-pf and measured 1.5-2.5x its cost
// per key, even at load 15; 9x was a build whose prefetches the compiler had
// deleted (bench/results/bloom-o2-vs-o3.md). Judged only when the buffer
// is far out of cache (a dependent read costs over 50 ns).
void WarnIfPrefetchesMissing(const RowResult* hashed, const RowResult* dram_pf,
                             const RowResult* dram_dep) {
  if (hashed == nullptr || dram_pf == nullptr || dram_dep == nullptr) return;
  if (dram_dep->query_neg_ns < 50 || dram_pf->query_neg_ns <= 0) return;
  if (hashed->query_neg_ns / dram_pf->query_neg_ns <= 5) return;
  std::printf(
      "WARNING: pre-hashed batched lookups cost over 5x a prefetched read: does the build keep "
      "the filter's prefetches? (objdump -d on bloom's filter_batch.cc.o | grep prefetch)\n");
}

// Our targets at one thread, from the rows measured.
void PrintTargets(const std::vector<RowResult>& rows) {
  const RowResult* dram = Find(rows, "dram");
  const RowResult* dram_pf = Find(rows, "dram-pf");
  const RowResult* dram_dep = Find(rows, "dram-dep");
  const RowResult* hash = Find(rows, "hash");
  const RowResult* bb = Find(rows, "blocked-batched");
  const RowResult* bh = Find(rows, "blocked-batched-hashed");
  const RowResult* bs = Find(rows, "blocked-single");
  const RowResult* cs = Find(rows, "classic-single");
  const RowResult* cb = Find(rows, "classic-batched");
  std::printf("\ntargets and ratios (1 thread):\n");
  if (bb) {
    PrintRatio("blocked batched negative lookup / dram", bb, dram, bb->query_neg_ns,
               dram ? dram->query_neg_ns : 0, "(target <= 2)");
    PrintRatio("blocked batched negative lookup / dram-pf", bb, dram_pf, bb->query_neg_ns,
               dram_pf ? dram_pf->query_neg_ns : 0, "(same prefetch distance)");
  }
  if (bh) {
    PrintRatio("blocked batched negative lookup, pre-hashed / dram-pf", bh, dram_pf,
               bh->query_neg_ns, dram_pf ? dram_pf->query_neg_ns : 0, "(hashing left out)");
    WarnIfPrefetchesMissing(bh, dram_pf, dram_dep);
  }
  if (bb && hash) {
    PrintRatio("  of which hashing: hash / blocked batched negative", hash, bb, hash->query_neg_ns,
               bb->query_neg_ns, "");
  }
  if (bs) {
    PrintRatio("blocked single negative lookup / dram-dep", bs, dram_dep, bs->query_neg_ns,
               dram_dep ? dram_dep->query_neg_ns : 0, "(one miss latency)");
  }
  if (bs && cs) {
    PrintRatio("classic/blocked single insert", cs, bs, cs->insert_ns, bs->insert_ns,
               "(target >= 3)");
    PrintRatio("classic/blocked single positive lookup", cs, bs, cs->query_pos_ns, bs->query_pos_ns,
               "(target >= 3)");
    PrintRatio("classic/blocked single negative lookup", cs, bs, cs->query_neg_ns, bs->query_neg_ns,
               "(target > 1)");
  }
  if (bb && cb) {
    PrintRatio("classic/blocked batched insert", cb, bb, cb->insert_ns, bb->insert_ns,
               "(target >= 3)");
    PrintRatio("classic/blocked batched positive lookup", cb, bb, cb->query_pos_ns,
               bb->query_pos_ns, "(target >= 3)");
    PrintRatio("classic/blocked batched negative lookup", cb, bb, cb->query_neg_ns,
               bb->query_neg_ns, "(target > 1)");
  }
  if (bs) {
    std::printf("  %-58s %6.3fx (target <= 1.25)\n",
                "blocked bits/key vs classic formula at the measured rate", BitsRatio(*bs));
  }
}

int Run() {
  RowSetup base;
  base.n = absl::GetFlag(FLAGS_n);
  base.p = absl::GetFlag(FLAGS_p);
  base.repeats = std::max(1, absl::GetFlag(FLAGS_repeats));
  base.queries = absl::GetFlag(FLAGS_queries);
  base.dirty_tracking = absl::GetFlag(FLAGS_dirty_tracking);
  if (base.queries == 0) base.queries = std::min<uint64_t>(base.n, 2'000'000);
  const bool json = absl::GetFlag(FLAGS_json);
  if (!bloom::ShapeFor(base.layout, base.n, base.p).ok()) {
    std::fprintf(stderr, "bloom-bench: invalid --n/--p: %s\n",
                 bloom::ShapeFor(base.layout, base.n, base.p).status().ToString().c_str());
    return 2;
  }
  if (!json) {
    PrintSetup(base.n, base.p, base.queries, base.repeats);
    std::printf("dirty tracking %s\n", base.dirty_tracking ? "on" : "off");
    PrintTableHeader();
  }
  std::vector<RowResult> rows;
  auto emit = [&](const RowResult& row) {
    rows.push_back(row);
    json ? PrintJsonRow(row) : PrintTableRow(row);
  };
  if (absl::GetFlag(FLAGS_dram)) {
    const uint64_t bytes = bloom::BlockedShape(base.n, base.p)->MemoryBytes();
    for (const RowResult& row : RunDramRows(bytes, base.queries, base.repeats, base.n, base.p)) {
      emit(row);
    }
    emit(RunHashRow(base.queries, base.repeats, base.n, base.p));
  }
  for (absl::string_view layout_name : absl::StrSplit(absl::GetFlag(FLAGS_layouts), ',')) {
    RowSetup setup = base;
    setup.layout = layout_name == "classic" ? bloom::Layout::kClassic : bloom::Layout::kBlocked;
    std::vector<RowSetup> setups;
    for (int mode = 0; mode < (absl::GetFlag(FLAGS_hashed) ? 3 : 2); ++mode) {
      for (absl::string_view threads : absl::StrSplit(absl::GetFlag(FLAGS_threads), ',')) {
        setup.batched = mode >= 1;
        setup.prehashed = mode == 2;
        setup.threads = std::max(1, std::atoi(std::string(threads).c_str()));
        setups.push_back(setup);
      }
    }
    const std::vector<RowResult> layout_rows = RunLayoutRows(setups);
    for (const RowResult& row : layout_rows) emit(row);
    if (!json && !layout_rows.empty()) {
      std::printf("  (huge pages: AnonHugePages %.0f MB in the process for this %.0f MB filter)\n",
                  layout_rows.front().anon_huge_mb, layout_rows.front().filter_mb);
    }
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
