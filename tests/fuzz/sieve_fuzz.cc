// Fuzzes sieve::Sieve::Open (sieve/sieve.h): the input is written as the
// checkpoint file of a scratch directory (in /dev/shm when it exists), which
// is then opened. Each input is tried as is and with its checksums repaired
// (checksum_fixup.h: the file's trailer and the embedded Bloom filter's), so
// that mutated counts and lengths reach the parser behind the checksum.
// Open must refuse bad files with a status, never crash or allocate more
// than the file justifies (-malloc_limit_mb in scripts/fuzz). A Sieve that
// opens must hand out exactly the URLs its Stats() says are queued.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "checksum_fixup.h"
#include "sieve/sieve.h"

namespace {

namespace fs = std::filesystem;

[[noreturn]] void Fail(const char* what, uint64_t a, uint64_t b) {
  std::fprintf(stderr, "invariant broken: %s (%llu vs %llu)\n", what,
               static_cast<unsigned long long>(a), static_cast<unsigned long long>(b));
  std::abort();
}

// One scratch directory per process, removed at exit.
const fs::path& ScratchDir() {
  static const fs::path* const dir = [] {
    const fs::path parent =
        fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    auto* path = new fs::path(parent / ("crawl-sieve-fuzz-" + std::to_string(getpid())));
    fs::create_directories(*path / "spill");
    std::atexit([] {
      std::error_code ignored;
      fs::remove_all(*dir, ignored);
    });
    return path;
  }();
  return *dir;
}

void WriteCheckpoint(const std::string& bytes) {
  std::ofstream out(sieve::Sieve::CheckpointPath(ScratchDir()), std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Drains an opened Sieve and checks it held what its stats said.
void Exercise(sieve::Sieve& sieve) {
  const sieve::SieveStats before = sieve.Stats();
  uint64_t popped = 0;
  while (std::optional<std::string> url = sieve.TryPop()) {
    ++popped;
    if (!sieve.MarkDone(*url)) Fail("popped URL was not in flight", popped, 0);
  }
  if (popped != before.queued) Fail("pops differ from Stats().queued", popped, before.queued);
  (void)sieve.Push("https://fuzz.example/after-open");
  sieve.Close();
}

void TryOpen(const std::string& bytes) {
  WriteCheckpoint(bytes);
  sieve::SieveOptions runtime;
  runtime.spill_dir = ScratchDir() / "spill";
  // The smallest budget: small segments, so a restored queue past it spills.
  runtime.queue_memory_budget_bytes = size_t{64} << 10;
  absl::StatusOr<std::unique_ptr<sieve::Sieve>> opened = sieve::Sieve::Open(ScratchDir(), runtime);
  if (opened.ok()) Exercise(**opened);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  TryOpen(bytes);
  fuzz::RepairChecksums(bytes);
  fuzz::RepairTrailer(bytes);
  TryOpen(bytes);
  return 0;
}
