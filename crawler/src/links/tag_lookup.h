// TagOf: a lowercased tag name to Gumbo's own tag enum (gumbo_tagn_enum), so
// that two unknown tags compare equal exactly where Gumbo 0.10.1 says they
// do, with a per-thread cache in front of Gumbo's lookup.
//
// Example:
//   TagOf("div") == GUMBO_TAG_DIV; TagOf("my-tag") == GUMBO_TAG_UNKNOWN
//
// Threading: safe from any thread (the cache is thread_local).
#ifndef CRAWLER_SRC_LINKS_TAG_LOOKUP_H_
#define CRAWLER_SRC_LINKS_TAG_LOOKUP_H_

#include <gumbo.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace crawler::links_internal {

inline bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// TagOf for a name already known to be lowercase letters and digits.
inline GumboTag TagOfAlnum(std::string_view lower_name) {
  if (lower_name.empty() || lower_name.size() > 8) {
    return gumbo_tagn_enum(lower_name.data(), static_cast<unsigned>(lower_name.size()));
  }
  // A page names the same few tags thousands of times, and Gumbo's lookup
  // (a perfect hash, then a case-insensitive compare) was ~5% of a crawl's
  // CPU: names of up to 8 bytes, packed into a word (no name holds a NUL, so
  // lengths cannot collide), are remembered per thread in 64 direct-mapped
  // slots. A slot's key starts as ~0, which no name packs to.
  struct Slot {
    uint64_t key = ~uint64_t{0};
    GumboTag tag = GUMBO_TAG_UNKNOWN;
  };
  thread_local std::array<Slot, 64> cache;
  uint64_t key = 0;
  std::memcpy(&key, lower_name.data(), lower_name.size());
  Slot& slot = cache[(key * 0x9E3779B97F4A7C15ULL) >> 58];
  if (slot.key != key) {
    slot.key = key;
    slot.tag = gumbo_tagn_enum(lower_name.data(), static_cast<unsigned>(lower_name.size()));
  }
  return slot.tag;
}

// A name with anything but lowercase letters and digits is no tag Gumbo
// knows (its names are all such): GUMBO_TAG_UNKNOWN.
inline GumboTag TagOf(std::string_view lower_name) {
  for (const char c : lower_name) {
    if (!IsLowerAlnum(c)) return GUMBO_TAG_UNKNOWN;
  }
  return TagOfAlnum(lower_name);
}

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_TAG_LOOKUP_H_
