// Byte-level ASCII helpers shared by the links room's small parsers (HTML
// defines its whitespace and case folding on ASCII only, never by locale).
#ifndef CRAWLER_SRC_LINKS_ASCII_H_
#define CRAWLER_SRC_LINKS_ASCII_H_

#include <array>
#include <cstdint>
#include <string_view>

namespace crawler::links_internal {

// HTML's ASCII whitespace: TAB, LF, FF, CR, SPACE.
inline bool IsHtmlSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

// The bytes that end names and values in HTML's tag and attribute states,
// by class, for the loops that walk every tag of every page: one table load
// a byte instead of up to eight compares. IsHtmlByte(c, kHtmlSpace | kGt)
// is "space or '>'".
enum HtmlByteClass : uint8_t { kHtmlSpace = 1, kGt = 2, kSlash = 4, kEquals = 8 };
inline constexpr std::array<uint8_t, 256> kHtmlByteClasses = [] {
  std::array<uint8_t, 256> table{};
  for (const char c : {' ', '\t', '\n', '\r', '\f'}) {
    table[static_cast<unsigned char>(c)] = kHtmlSpace;
  }
  table['>'] = kGt;
  table['/'] = kSlash;
  table['='] = kEquals;
  return table;
}();

inline bool IsHtmlByte(char c, uint8_t classes) {
  return (kHtmlByteClasses[static_cast<unsigned char>(c)] & classes) != 0;
}

inline bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

inline char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

inline std::string_view TrimHtmlSpace(std::string_view s) {
  while (!s.empty() && IsHtmlSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsHtmlSpace(s.back())) s.remove_suffix(1);
  return s;
}

inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

inline bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualsIgnoreCase(s.substr(0, prefix.size()), prefix);
}

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_ASCII_H_
