// Deterministic test keys: URL-like strings from a prefix and an index, so
// that "inserted" and "never inserted" key sets never overlap.
#ifndef TESTS_BLOOM_KEYS_H_
#define TESTS_BLOOM_KEYS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bloom_test {

// Sanitizer builds check memory and thread safety, ~10x slower: they run the
// same tests over fewer keys. The statistical bounds are asserted in full in
// the plain build; results are deterministic (fixed keys), so each size is
// checked to pass in both.
#ifdef CRAWL_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
inline constexpr uint64_t Scaled(uint64_t full) { return kSanitized ? full / 5 : full; }

inline std::string Key(std::string_view prefix, uint64_t i) {
  std::string key = "https://";
  key.append(prefix);
  key.append(".example/page/");
  key.append(std::to_string(i));
  return key;
}

inline std::vector<std::string> Keys(std::string_view prefix, uint64_t begin, uint64_t end) {
  std::vector<std::string> keys;
  keys.reserve(end - begin);
  for (uint64_t i = begin; i < end; ++i) keys.push_back(Key(prefix, i));
  return keys;
}

inline std::vector<std::string_view> Views(const std::vector<std::string>& keys) {
  return std::vector<std::string_view>(keys.begin(), keys.end());
}

}  // namespace bloom_test

#endif  // TESTS_BLOOM_KEYS_H_
