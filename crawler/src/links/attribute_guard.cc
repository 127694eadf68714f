// AttributeSafePrefix: memchr from '<' to '<', then a walk over the tag's
// attributes to its '>'.
#include "links/attribute_guard.h"

#include <cstring>

#include "links/ascii.h"

namespace crawler::links_internal {
namespace {

// Counts the attributes of the start tag whose name starts at `p`, stopping
// past `max`; `*tag_end` is set to the '>' (or `end`).
size_t CountAttributes(const char* p, const char* end, size_t max, const char** tag_end) {
  while (p < end && !IsHtmlByte(*p, kHtmlSpace | kGt | kSlash)) ++p;  // the tag name
  size_t count = 0;
  while (p < end && *p != '>' && count <= max) {
    if (IsHtmlByte(*p, kHtmlSpace | kSlash)) {
      ++p;
      continue;
    }
    ++count;  // an attribute name starts here
    while (p < end && !IsHtmlByte(*p, kHtmlSpace | kEquals | kGt | kSlash)) ++p;
    while (p < end && IsHtmlByte(*p, kHtmlSpace)) ++p;
    if (p == end || *p != '=') continue;
    ++p;
    while (p < end && IsHtmlByte(*p, kHtmlSpace)) ++p;
    if (p < end && (*p == '"' || *p == '\'')) {
      const void* close = std::memchr(p + 1, *p, static_cast<size_t>(end - p - 1));
      p = close == nullptr ? end : static_cast<const char*>(close) + 1;
    } else {
      while (p < end && !IsHtmlByte(*p, kHtmlSpace | kGt)) ++p;
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
