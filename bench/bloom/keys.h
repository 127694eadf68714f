// Benchmark keys: URL-like, fixed length, generated in chunks into one flat
// buffer (no allocation per key), from an index through a bijective mix so
// consecutive keys are unrelated. "Present" and "absent" keys differ in host.
#ifndef BENCH_BLOOM_KEYS_H_
#define BENCH_BLOOM_KEYS_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace bloom_bench {

// splitmix64's finalizer: a bijection on 64-bit values.
inline uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

class KeyChunk {
 public:
  static constexpr size_t kKeyBytes = 47;  // "https://www.example.com/p/" + 16 hex + ".html"

  explicit KeyChunk(size_t capacity) : buffer_(capacity * kKeyBytes), views_(capacity) {}

  // Keys for indexes [begin, begin + count) of the present or absent set.
  void FillRange(bool present, uint64_t begin, size_t count) {
    for (size_t j = 0; j < count; ++j) Write(j, present, begin + j);
    size_ = count;
  }
  // `count` keys of the present set at pseudo-random indexes below `n`.
  void FillSample(uint64_t n, uint64_t seed, size_t count) {
    for (size_t j = 0; j < count; ++j) Write(j, true, Mix(seed + j) % n);
    size_ = count;
  }
  std::vector<std::string_view>::const_iterator begin() const { return views_.begin(); }
  const std::string_view* data() const { return views_.data(); }
  size_t size() const { return size_; }

 private:
  void Write(size_t slot, bool present, uint64_t index) {
    static constexpr char kHex[] = "0123456789abcdef";
    char* out = buffer_.data() + slot * kKeyBytes;
    const std::string_view prefix =
        present ? "https://www.example.com/p/" : "https://www.example.org/p/";
    for (size_t i = 0; i < prefix.size(); ++i) out[i] = prefix[i];
    uint64_t value = Mix(index);
    for (int i = 15; i >= 0; --i, value >>= 4) out[prefix.size() + i] = kHex[value & 15];
    const std::string_view suffix = ".html";
    for (size_t i = 0; i < suffix.size(); ++i) out[prefix.size() + 16 + i] = suffix[i];
    views_[slot] = std::string_view(out, kKeyBytes);
  }

  std::vector<char> buffer_;
  std::vector<std::string_view> views_;
  size_t size_ = 0;
};

}  // namespace bloom_bench

#endif  // BENCH_BLOOM_KEYS_H_
