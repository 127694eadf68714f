// AttributeSafePrefix: memchr from '<' to '<', then a walk over the tag's
// attributes to its '>'.
#include "links/attribute_guard.h"

#include <array>
#include <cstdint>
#include <cstring>

#include "links/ascii.h"

namespace crawler::links_internal {
namespace {

// Each byte's roles in CountAttributes, one table lookup instead of up to
// eight compares per byte: this walk covers every tag of every page (~3% of
// a crawl's instructions on the synthetic site before the table).
enum ByteClass : uint8_t { kSpace = 1, kGt = 2, kSlash = 4, kEquals = 8 };
constexpr std::array<uint8_t, 256> kClasses = [] {
  std::array<uint8_t, 256> table{};
  for (const char c : {' ', '\t', '\n', '\r', '\f'}) table[static_cast<unsigned char>(c)] = kSpace;
  table['>'] = kGt;
  table['/'] = kSlash;
  table['='] = kEquals;
  return table;
}();

bool Is(const char* p, uint8_t classes) {
  return (kClasses[static_cast<unsigned char>(*p)] & classes) != 0;
}

// Counts the attributes of the start tag whose name starts at `p`, stopping
// past `max`; `*tag_end` is set to the '>' (or `end`).
size_t CountAttributes(const char* p, const char* end, size_t max, const char** tag_end) {
  while (p < end && !Is(p, kSpace | kGt | kSlash)) ++p;  // the tag name
  size_t count = 0;
  while (p < end && *p != '>' && count <= max) {
    if (Is(p, kSpace | kSlash)) {
      ++p;
      continue;
    }
    ++count;  // an attribute name starts here
    while (p < end && !Is(p, kSpace | kEquals | kGt | kSlash)) ++p;
    while (p < end && Is(p, kSpace)) ++p;
    if (p == end || *p != '=') continue;
    ++p;
    while (p < end && Is(p, kSpace)) ++p;
    if (p < end && (*p == '"' || *p == '\'')) {
      const void* close = std::memchr(p + 1, *p, static_cast<size_t>(end - p - 1));
      p = close == nullptr ? end : static_cast<const char*>(close) + 1;
    } else {
      while (p < end && !Is(p, kSpace | kGt)) ++p;
    }
  }
  *tag_end = p;
  return count;
}

}  // namespace

size_t AttributeSafePrefix(std::string_view html, size_t max_attributes) {
  const char* const begin = html.data();
  const char* const end = begin + html.size();
  const char* p = begin;
  while (true) {
    p = static_cast<const char*>(std::memchr(p, '<', static_cast<size_t>(end - p)));
    if (p == nullptr || end - p < 2) return html.size();
    const char* const tag = p++;
    if (*p == '!' && end - p >= 3 && p[1] == '-' && p[2] == '-') {
      const std::string_view rest(p + 3, static_cast<size_t>(end - p - 3));
      const size_t close = rest.find("-->");
      if (close == std::string_view::npos) return html.size();
      p += 3 + close + 3;
      continue;
    }
    if (!IsAsciiLetter(*p)) continue;  // an end tag, a doctype, a stray '<'
    const char* tag_end = end;
    if (CountAttributes(p, end, max_attributes, &tag_end) > max_attributes) {
      return static_cast<size_t>(tag - begin);
    }
    p = tag_end;
  }
}

}  // namespace crawler::links_internal
