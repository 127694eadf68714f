// mmap-backed storage: anonymous mappings are zeroed and lazily committed, so
// a 2 GB filter costs nothing until its pages are touched.
#include "bit_storage.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace bloom {
namespace {

constexpr size_t kPageBytes = 4096;

size_t RoundUp(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

absl::StatusOr<std::unique_ptr<BitStorage>> BitStorage::Allocate(uint64_t word_count,
                                                                 bool huge_pages) {
  if (word_count == 0 || word_count > (SIZE_MAX / 8) - 2 * kHugePageBytes) {
    return absl::InvalidArgumentError(absl::StrCat("bloom: bad word count ", word_count));
  }
  const size_t bytes = RoundUp(word_count * 8, kPageBytes);
  const bool want_huge = huge_pages && bytes >= kHugePageBytes;
  // For huge pages the start must be 2 MiB aligned: map extra, trim the ends.
  const size_t slack = want_huge ? kHugePageBytes : 0;
  const size_t mapped = bytes + slack;
  void* mapping = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) {
    return absl::ResourceExhaustedError(
        absl::StrCat("bloom: cannot map ", bytes, " bytes: ", std::strerror(errno)));
  }
  char* start = static_cast<char*>(mapping);
  size_t kept = mapped;
  if (want_huge) {
    const uintptr_t address = reinterpret_cast<uintptr_t>(start);
    char* aligned = start + (RoundUp(address, kHugePageBytes) - address);
    const size_t head = static_cast<size_t>(aligned - start);
    const size_t tail = slack - head;
    if (head > 0) munmap(start, head);
    if (tail > 0) munmap(aligned + bytes, tail);
    start = aligned;
    kept = bytes;
    // Advisory: fails harmlessly when THP is off or unsupported.
    madvise(start, bytes, MADV_HUGEPAGE);
  }
  return std::unique_ptr<BitStorage>(
      new BitStorage(start, kept, reinterpret_cast<uint64_t*>(start), word_count, want_huge));
}

BitStorage::~BitStorage() { munmap(mapping_, mapping_bytes_); }

}  // namespace bloom
