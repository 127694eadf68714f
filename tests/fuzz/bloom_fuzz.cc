// Fuzzes the loading of Bloom filter checkpoints (bloom/filter.h,
// bloom/scalable_filter.h): the input is handed to BloomFilter::Load and to
// ScalableBloomFilter::Load. Load must refuse anything truncated, corrupted or
// foreign without crashing and without allocating more than the input
// justifies (scripts/fuzz runs with -malloc_limit_mb, so a header that
// claims a huge filter and makes Load allocate it is a finding).
// A filter that loads must work, save, and load again from what it saved.
// Each input is tried as is and with its checksums repaired (checksum_fixup.h)
// so that mutated headers reach the size checks behind them.
// (CountingBloomFilter has no Load: nothing to fuzz there.)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

#include "bloom/filter.h"
#include "bloom/scalable_filter.h"
#include "checksum_fixup.h"

namespace {

[[noreturn]] void Fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "invariant broken: %s: %.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

// Uses a loaded filter, then checks Save/Load round-trips it.
template <typename Filter>
void Exercise(Filter& filter) {
  (void)filter.MayContain("https://example.com/");
  // crashes/bloom/ holds the input that once made this Add open a 1 GiB stage.
  filter.Add("https://fuzz.example/new");
  if (!filter.MayContain("https://fuzz.example/new")) Fail("false negative after Add", "");
  std::stringstream saved;
  absl::Status status = filter.Save(saved);
  if (!status.ok()) Fail("loaded filter does not save", std::string(status.message()));
  absl::StatusOr<Filter> again = Filter::Load(saved);
  if (!again.ok()) Fail("saved filter does not load", std::string(again.status().message()));
  if (!again->MayContain("https://fuzz.example/new")) {
    Fail("round trip lost a key", "");
  }
}

template <typename Filter>
void TryLoad(const std::string& bytes) {
  std::istringstream in(bytes);
  absl::StatusOr<Filter> filter = Filter::Load(in);
  if (filter.ok()) Exercise(*filter);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  TryLoad<bloom::BloomFilter>(bytes);
  TryLoad<bloom::ScalableBloomFilter>(bytes);
  fuzz::RepairChecksums(bytes);
  TryLoad<bloom::BloomFilter>(bytes);
  TryLoad<bloom::ScalableBloomFilter>(bytes);
  return 0;
}
