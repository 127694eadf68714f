// Code-point classes and path-segment predicates of the WHATWG URL
// Standard, shared by the parser's states. Internal to the url room.
#ifndef CRAWLER_SRC_URL_URL_GRAMMAR_H_
#define CRAWLER_SRC_URL_URL_GRAMMAR_H_

#include <string_view>

namespace crawler::url_internal {

inline bool IsAsciiAlpha(char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
inline bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsSchemeChar(char c) {
  return IsAsciiAlpha(c) || IsAsciiDigit(c) || c == '+' || c == '-' || c == '.';
}
inline char ToLowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c | 0x20) : c; }
inline bool IsFileHostDelimiter(char c) { return c == '/' || c == '\\' || c == '?' || c == '#'; }
inline bool IsTabOrNewline(char c) { return c == '\t' || c == '\n' || c == '\r'; }

// "%2e" in any case.
inline bool IsEncodedDot(std::string_view s) {
  return s.size() == 3 && s[0] == '%' && s[1] == '2' && (s[2] | 0x20) == 'e';
}
inline bool IsSingleDotSegment(std::string_view s) { return s == "." || IsEncodedDot(s); }
inline bool IsDoubleDotSegment(std::string_view s) {
  switch (s.size()) {
    case 2:
      return s == "..";
    case 4:
      return (s[0] == '.' && IsEncodedDot(s.substr(1))) ||
             (s[3] == '.' && IsEncodedDot(s.substr(0, 3)));
    case 6:
      return IsEncodedDot(s.substr(0, 3)) && IsEncodedDot(s.substr(3));
    default:
      return false;
  }
}

// "C:" or "C|".
inline bool IsWindowsDriveLetter(std::string_view s) {
  return s.size() == 2 && IsAsciiAlpha(s[0]) && (s[1] == ':' || s[1] == '|');
}
inline bool IsNormalizedWindowsDriveLetter(std::string_view s) {
  return s.size() == 2 && IsAsciiAlpha(s[0]) && s[1] == ':';
}
inline bool StartsWithWindowsDriveLetter(std::string_view s) {
  if (s.size() < 2 || !IsWindowsDriveLetter(s.substr(0, 2))) return false;
  if (s.size() == 2) return true;
  const char c = s[2];
  return c == '/' || c == '\\' || c == '?' || c == '#';
}

}  // namespace crawler::url_internal

#endif  // CRAWLER_SRC_URL_URL_GRAMMAR_H_
