// The bit array behind a filter: zeroed, 64-byte aligned memory from mmap, with
// transparent huge pages requested when large. Private to the library.
#ifndef BLOOM_SRC_BIT_STORAGE_H_
#define BLOOM_SRC_BIT_STORAGE_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"

namespace bloom {

class BitStorage {
 public:
  // Below this a filter lives in 4 KiB pages: a huge page would waste memory.
  static constexpr size_t kHugePageBytes = size_t{2} << 20;

  // `word_count` zeroed 64-bit words. ResourceExhausted if the kernel refuses.
  static absl::StatusOr<std::unique_ptr<BitStorage>> Allocate(uint64_t word_count, bool huge_pages);
  ~BitStorage();
  BitStorage(const BitStorage&) = delete;
  BitStorage& operator=(const BitStorage&) = delete;

  uint64_t* words() { return words_; }
  const uint64_t* words() const { return words_; }
  uint64_t word_count() const { return word_count_; }
  bool huge_pages_requested() const { return huge_pages_requested_; }

 private:
  BitStorage(void* mapping, size_t mapping_bytes, uint64_t* words, uint64_t word_count,
             bool huge_pages_requested)
      : mapping_(mapping),
        mapping_bytes_(mapping_bytes),
        words_(words),
        word_count_(word_count),
        huge_pages_requested_(huge_pages_requested) {}

  void* mapping_;
  size_t mapping_bytes_;
  uint64_t* words_;
  uint64_t word_count_;
  bool huge_pages_requested_;
};

}  // namespace bloom

#endif  // BLOOM_SRC_BIT_STORAGE_H_
