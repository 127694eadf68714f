// Writes real, small checkpoints as seeds for the bloom and sieve fuzzers:
//   fuzz_seed_checkpoints DIR   ->  DIR/bloom/*.bin, DIR/sieve/*.ckpt
// scripts/fuzz runs it into the build's corpus copy; the committed seeds in
// tests/fuzz/corpus/ were made the same way. Filters are sized for a few
// hundred keys so each seed is a few hundred bytes to a few KB.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "bloom/filter.h"
#include "bloom/scalable_filter.h"
#include "sieve/sieve.h"

namespace {

namespace fs = std::filesystem;

std::string Key(int i) { return "https://seed.example/page/" + std::to_string(i); }

bool WriteFilter(const fs::path& path, bloom::Layout layout, uint64_t n, double p, int keys) {
  absl::StatusOr<bloom::BloomFilter> filter =
      bloom::BloomFilter::Create({.expected_count = n, .fp_rate = p, .layout = layout});
  if (!filter.ok()) return false;
  for (int i = 0; i < keys; ++i) filter->Add(Key(i));
  return filter->SaveFile(path.string()).ok();
}

bool WriteScalable(const fs::path& path, uint64_t n, int keys) {
  absl::StatusOr<bloom::ScalableBloomFilter> filter =
      bloom::ScalableBloomFilter::Create({.expected_count = n, .fp_rate = 0.01});
  if (!filter.ok()) return false;
  for (int i = 0; i < keys; ++i) filter->Add(Key(i));
  return filter->SaveFile(path.string()).ok();
}

// A Sieve with `pushed` URLs of which `popped` were popped (and `done` of
// those marked done), saved; its checkpoint file copied to `path`.
bool WriteSieve(const fs::path& path, sieve::OverflowPolicy policy, int pushed, int popped,
                int done) {
  const fs::path scratch = path.parent_path() / "scratch";
  absl::StatusOr<std::unique_ptr<sieve::Sieve>> sieve = sieve::Sieve::Create(
      {.expected_count = 64, .fp_rate = 0.05, .spill_dir = scratch, .overflow_policy = policy});
  if (!sieve.ok()) return false;
  for (int i = 0; i < pushed; ++i) (*sieve)->Push(Key(i));
  for (int i = 0; i < popped; ++i) {
    std::optional<std::string> url = (*sieve)->TryPop();
    if (url && i < done) (*sieve)->MarkDone(*url);
  }
  if (!(*sieve)->Save(scratch).ok()) return false;
  std::error_code error;
  fs::copy_file(sieve::Sieve::CheckpointPath(scratch), path, fs::copy_options::overwrite_existing,
                error);
  fs::remove_all(scratch, error);
  return !error;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const fs::path bloom_dir = fs::path(argv[1]) / "bloom";
  const fs::path sieve_dir = fs::path(argv[1]) / "sieve";
  fs::create_directories(bloom_dir);
  fs::create_directories(sieve_dir);
  bool ok = WriteFilter(bloom_dir / "blocked-empty.bin", bloom::Layout::kBlocked, 10, 0.01, 0) &&
            WriteFilter(bloom_dir / "blocked-100.bin", bloom::Layout::kBlocked, 100, 0.01, 100) &&
            WriteFilter(bloom_dir / "classic-50.bin", bloom::Layout::kClassic, 50, 0.1, 50) &&
            WriteFilter(bloom_dir / "classic-1.bin", bloom::Layout::kClassic, 1, 0.5, 1) &&
            WriteScalable(bloom_dir / "scalable-one-stage.bin", 20, 10) &&
            WriteScalable(bloom_dir / "scalable-three-stages.bin", 8, 60) &&
            WriteSieve(sieve_dir / "empty.ckpt", sieve::OverflowPolicy::kWarn, 0, 0, 0) &&
            WriteSieve(sieve_dir / "queued.ckpt", sieve::OverflowPolicy::kWarn, 12, 0, 0) &&
            WriteSieve(sieve_dir / "in-flight.ckpt", sieve::OverflowPolicy::kWarn, 12, 5, 2) &&
            WriteSieve(sieve_dir / "drained.ckpt", sieve::OverflowPolicy::kWarn, 6, 6, 6) &&
            WriteSieve(sieve_dir / "grow.ckpt", sieve::OverflowPolicy::kGrow, 150, 3, 1) &&
            WriteSieve(sieve_dir / "over-capacity.ckpt", sieve::OverflowPolicy::kWarn, 200, 0, 0);
  if (!ok) {
    std::fprintf(stderr, "fuzz_seed_checkpoints: could not write the seeds\n");
    return 1;
  }
  return 0;
}
