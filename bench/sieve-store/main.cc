// sieve-store-bench: what the Sieve's queue costs on disk, and what its
// checkpoints cost.
//
//   build/bin/sieve-store-bench [--urls 1e6,1e7] [--levels 1,3,6,9]
//                               [--dir /var/tmp] [--budget_mib 64]
//
// Compression, push and pop costs are this thread's CPU time (the machine may
// be shared); Save times are wall time (they wait for the disk).
//
// 1. zstd levels: segments of 8 MiB (the spill segment at the default 64 MiB
//    budget) of two URL mixes, compressed at each level: disk bytes per queued
//    URL (header included) and compress/decompress ns per URL (the cost a
//    push and a pop pay, amortized, under the queue lock).
//      bench:   bench/sieve/url_generator.h (mean ~75 bytes), no payload
//      crawler: the same URLs, each with a payload of depth byte + parent URL,
//               30 consecutive siblings sharing a parent (what the crawler keeps)
// 2. The Sieve itself at N queued URLs (bench mix): push and pop ns per URL
//    (batched pushes), disk bytes per queued URL, and two Saves in a row into
//    one directory (the second after 1000 pops and pushes): wall time, bytes
//    written as new files, bytes linked.
#include <sys/stat.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "../../sieve/src/segment.h"
#include "../../sieve/src/segment_file.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "sieve/sieve.h"
#include "sieve/url_generator.h"

ABSL_FLAG(std::string, urls, "1e6,1e7", "comma-separated queue lengths N for the Sieve rows");
ABSL_FLAG(std::string, levels, "1,3,6,9", "zstd levels to compare");
ABSL_FLAG(std::string, dir, "", "where spill and checkpoint files go (default: $TMPDIR)");
ABSL_FLAG(int, budget_mib, 64, "the Sieve's queue_memory_budget_bytes, in MiB");

namespace sieve_store_bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// CPU time of this thread: compression and queue costs measured on a shared,
// loaded machine (wall time there counts other processes' turns too).
struct CpuClock {
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<CpuClock, duration>;
  static time_point now() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return time_point(duration(int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec));
  }
};
using sieve_bench::UrlGenerator;

fs::path WorkDir() {
  const std::string dir = absl::GetFlag(FLAGS_dir);
  return dir.empty() ? fs::temp_directory_path() : fs::path(dir);
}

template <typename Duration>
double Seconds(Duration d) {
  return std::chrono::duration<double>(d).count();
}

std::vector<double> ParseList(const std::string& text) {
  std::vector<double> values;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    double v = 0;
    if (absl::SimpleAtod(part, &v)) values.push_back(v);
  }
  return values;
}

// Fills a segment of ~8 MiB from URL `first` on; returns the next URL number.
uint64_t FillSegment(bool crawler_mix, uint64_t first, sieve::internal::Segment& segment) {
  UrlGenerator urls;
  std::string url;
  std::string payload;
  uint64_t i = first;
  while (segment.Bytes().size() < (size_t{8} << 20)) {
    urls.Generate(i, url);
    payload.clear();
    if (crawler_mix) {
      payload.push_back(static_cast<char>(1 + i % 5));  // depth
      std::string parent;
      urls.Generate(i / 30 + (uint64_t{1} << 40), parent);
      payload.append(parent);
    }
    segment.Append(url, payload);
    ++i;
  }
  return i;
}

void LevelRows() {
  std::printf(
      "\n## zstd level (8 MiB segments, 4 per mix)\n\n"
      "| mix     | level | raw B/URL | disk B/URL | ratio | compress ns/URL | MB/s | "
      "decompress ns/URL |\n"
      "|---------|-------|-----------|------------|-------|-----------------|------|"
      "-------------------|\n");
  const fs::path dir = WorkDir() / "sieve-store-bench-levels";
  fs::create_directories(dir);
  for (bool crawler_mix : {false, true}) {
    std::vector<sieve::internal::Segment> segments(4);
    uint64_t next = 0;
    for (auto& segment : segments) next = FillSegment(crawler_mix, next, segment);
    for (double level : ParseList(absl::GetFlag(FLAGS_levels))) {
      sieve::internal::SegmentCompressor compressor(static_cast<int>(level));
      uint64_t raw = 0, disk = 0, records = 0;
      CpuClock::duration compress{}, decompress{};
      for (size_t s = 0; s < segments.size(); ++s) {
        sieve::internal::SegmentFileInfo info;
        const CpuClock::time_point t0 = CpuClock::now();
        absl::StatusOr<std::string> file =
            compressor.Encode(segments[s].Bytes(), segments[s].Remaining(), info);
        compress += CpuClock::now() - t0;
        const fs::path path = dir / ("segment-" + std::to_string(s));
        std::FILE* out = std::fopen(path.c_str(), "wb");
        std::fwrite(file->data(), 1, file->size(), out);
        std::fclose(out);
        const Clock::time_point t1 = Clock::now();
        absl::StatusOr<sieve::internal::Segment> back =
            sieve::internal::LoadSegmentFile(path, info);
        decompress += Clock::now() - t1;
        if (!back.ok()) std::fprintf(stderr, "%s\n", back.status().ToString().c_str());
        raw += info.raw_bytes;
        disk += info.FileBytes();
        records += info.records;
      }
      const double n = static_cast<double>(records);
      std::printf("| %-7s | %5.0f | %9.1f | %10.1f | %5.2f | %15.0f | %4.0f | %17.0f |\n",
                  crawler_mix ? "crawler" : "bench", level, raw / n, disk / n,
                  static_cast<double>(raw) / static_cast<double>(disk), Seconds(compress) * 1e9 / n,
                  raw / Seconds(compress) / 1e6, Seconds(decompress) * 1e9 / n);
      std::fflush(stdout);
    }
  }
  fs::remove_all(dir);
}

// Bytes of files in `dir` created since `before` (names not in it): those
// with one link were written, those with more were linked.
void NewFileBytes(const fs::path& dir, const std::set<std::string>& before, uint64_t& written,
                  uint64_t& linked) {
  written = linked = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    struct stat st;
    if (::stat(entry.path().c_str(), &st) != 0) continue;
    if (before.count(name) > 0 && name != "sieve.checkpoint") continue;
    (st.st_nlink > 1 ? linked : written) += static_cast<uint64_t>(st.st_size);
  }
}

std::set<std::string> Names(const fs::path& dir) {
  std::set<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

void SieveRow(uint64_t n) {
  const fs::path base = WorkDir() / "sieve-store-bench";
  fs::remove_all(base);
  fs::create_directories(base / "spill");
  sieve::SieveOptions options;
  options.expected_count = n;
  options.queue_memory_budget_bytes = static_cast<size_t>(absl::GetFlag(FLAGS_budget_mib)) << 20;
  options.spill_dir = base / "spill";
  auto sieve = *sieve::Sieve::Create(options);
  UrlGenerator urls;
  std::vector<std::string> chunk(4096);
  std::vector<std::string_view> views;
  uint64_t next = 0;
  CpuClock::duration push{};
  while (next < n) {
    views.clear();
    for (size_t i = 0; i < chunk.size() && next < n; ++i, ++next) {
      urls.Generate(next, chunk[i]);
      views.push_back(chunk[i]);
    }
    const CpuClock::time_point t0 = CpuClock::now();
    sieve->PushBatch(views);
    push += CpuClock::now() - t0;
  }
  const sieve::SieveStats full = sieve->Stats();
  const fs::path ckpt = base / "ckpt";
  double save_s[2];
  uint64_t written[2], linked[2];
  for (int round = 0; round < 2; ++round) {
    if (round == 1) {  // a little change between the Saves
      std::string url;
      for (int i = 0; i < 1000; ++i) {
        sieve->MarkDone(*sieve->Pop());
        urls.Generate(n + i, url);
        sieve->Push(url);
      }
    }
    const std::set<std::string> before = fs::exists(ckpt) ? Names(ckpt) : std::set<std::string>();
    const Clock::time_point t0 = Clock::now();
    if (absl::Status s = sieve->Save(ckpt); !s.ok())
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
    save_s[round] = Seconds(Clock::now() - t0);
    NewFileBytes(ckpt, before, written[round], linked[round]);
  }
  const CpuClock::time_point t0 = CpuClock::now();
  uint64_t popped = 0;
  while (std::optional<std::string> url = sieve->TryPop()) ++popped;
  const double pop_ns = Seconds(CpuClock::now() - t0) * 1e9 / static_cast<double>(popped);
  std::printf(
      "| %11lu | %7.0f | %6.0f | %10.1f | %8.3f | %9.1f | %9.1f | %8.3f | %9.2f | %9.1f |\n",
      static_cast<unsigned long>(full.queued), Seconds(push) * 1e9 / static_cast<double>(n), pop_ns,
      static_cast<double>(full.queue_disk_bytes) / static_cast<double>(full.queued), save_s[0],
      written[0] / 1e6, linked[0] / 1e6, save_s[1], written[1] / 1e6, linked[1] / 1e6);
  std::fflush(stdout);
  sieve.reset();
  fs::remove_all(base);
}

int Main() {
#ifndef __OPTIMIZE__
  std::printf("WARNING: built without optimization: timings are meaningless\n");
#endif
  std::printf("sieve-store-bench (%s build), segment level in use: %d\n", CRAWL_BUILD_TYPE,
              sieve::internal::kSegmentZstdLevel);
  LevelRows();
  std::printf(
      "\n## The Sieve (bench mix, budget %d MiB; Save 2 after 1000 pops and pushes)\n\n"
      "|      queued | push ns | pop ns | disk B/URL | save 1 s | wrote MB | linked MB | "
      "save 2 s | wrote MB | linked MB |\n"
      "|-------------|---------|--------|------------|----------|----------|-----------|"
      "----------|----------|-----------|\n",
      absl::GetFlag(FLAGS_budget_mib));
  for (double n : ParseList(absl::GetFlag(FLAGS_urls))) SieveRow(static_cast<uint64_t>(n));
  return 0;
}

}  // namespace
}  // namespace sieve_store_bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return sieve_store_bench::Main();
}
