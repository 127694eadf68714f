// IsValidUtf8 / IsAscii: an 8-bytes-at-a-time ASCII fast path, then the
// RFC 3629 table (section 4) for multi-byte sequences.
#include "links/utf8.h"

#include <cstdint>
#include <cstring>

namespace crawler::links_internal {
namespace {

constexpr uint64_t kHighBits = 0x8080808080808080ULL;

// Length of the leading run of whole 8-byte words that are all ASCII.
size_t AsciiPrefix(const unsigned char* p, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    std::memcpy(&word, p + i, 8);
    if (word & kHighBits) break;
  }
  return i;
}

bool InRange(unsigned char c, unsigned char lo, unsigned char hi) { return c >= lo && c <= hi; }

// Validates one multi-byte sequence at p[0] (p[0] >= 0x80); returns its
// length, or 0 if malformed.
size_t SequenceLength(const unsigned char* p, size_t left) {
  const unsigned char c = p[0];
  auto cont = [&](size_t i) { return i < left && InRange(p[i], 0x80, 0xBF); };
  if (InRange(c, 0xC2, 0xDF)) return cont(1) ? 2 : 0;
  if (InRange(c, 0xE0, 0xEF)) {
    if (left < 2) return 0;
    const unsigned char lo = c == 0xE0 ? 0xA0 : 0x80;  // no overlongs
    const unsigned char hi = c == 0xED ? 0x9F : 0xBF;  // no surrogates
    return InRange(p[1], lo, hi) && cont(2) ? 3 : 0;
  }
  if (InRange(c, 0xF0, 0xF4)) {
    if (left < 2) return 0;
    const unsigned char lo = c == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi = c == 0xF4 ? 0x8F : 0xBF;  // nothing above U+10FFFF
    return InRange(p[1], lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

}  // namespace

bool IsValidUtf8(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  size_t i = 0;
  while (i < n) {
    i += AsciiPrefix(p + i, n - i);
    if (i >= n) break;
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    const size_t length = SequenceLength(p + i, n - i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

bool IsAscii(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t i = AsciiPrefix(p, bytes.size());
  for (; i < bytes.size(); ++i) {
    if (p[i] >= 0x80) return false;
  }
  return true;
}

}  // namespace crawler::links_internal
