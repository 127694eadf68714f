// Attribute character references: a sorted table and a longest-prefix
// search (Gumbo's ragel machine is a longest-match scanner over the same
// 2231 names).
#include "links/char_refs.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>

namespace crawler::links_internal {
namespace {

struct NamedCharRef {
  std::string_view name;
  std::string_view utf8;
};

constexpr NamedCharRef kNamedCharRefs[] = {
#include "links/named_char_refs.inc"
};

// The longest name ("CounterClockwiseContourIntegral;").
constexpr size_t kLongestCharRefName = 32;

// Gumbo's kCharReplacements for 0x80-0x9F (0x81, 0x8D, 0x8F, 0x90, 0x9D map
// to themselves).
constexpr std::array<char16_t, 32> kC1Replacements = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

bool IsAsciiAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int DigitValue(char c, bool hex) {
  if (c >= '0' && c <= '9') return c - '0';
  if (hex && c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (hex && c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

const NamedCharRef* FindNamed(std::string_view name) {
  const auto* end = std::end(kNamedCharRefs);
  const auto* it = std::lower_bound(
      std::begin(kNamedCharRefs), end, name,
      [](const NamedCharRef& ref, std::string_view key) { return ref.name < key; });
  return it != end && it->name == name ? it : nullptr;
}

CharRefResult Literal(size_t* pos, std::string* out) {
  out->push_back('&');
  ++*pos;
  return CharRefResult::kLiteral;
}

CharRefResult NumericRef(std::string_view text, size_t* pos, std::string* out) {
  size_t i = *pos + 2;  // past "&#"
  bool hex = false;
  if (i < text.size() && (text[i] == 'x' || text[i] == 'X')) {
    hex = true;
    ++i;
  }
  if (i >= text.size() || DigitValue(text[i], hex) < 0) return Literal(pos, out);
  int64_t value = 0;
  for (; i < text.size() && DigitValue(text[i], hex) >= 0; ++i) {
    value = value * (hex ? 16 : 10) + DigitValue(text[i], hex);
    // Gumbo accumulates in an int: past INT_MAX its result is not defined.
    if (value > INT32_MAX) return CharRefResult::kUnsure;
  }
  if (i < text.size() && text[i] == ';') ++i;
  *pos = i;
  char32_t cp = static_cast<char32_t>(value);
  if (cp == 0) {
    cp = 0xFFFD;
  } else if (cp >= 0x80 && cp <= 0x9F) {
    cp = kC1Replacements[cp - 0x80];
  } else if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
    cp = 0xFFFD;
  }
  AppendUtf8(cp, out);
  return CharRefResult::kDecoded;
}

}  // namespace

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

CharRefResult AppendAttributeCharRef(std::string_view text, size_t* pos, char allowed,
                                     std::string* out) {
  const size_t next = *pos + 1;
  if (next >= text.size()) return Literal(pos, out);
  const char c = text[next];
  if (c == allowed || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == ' ' || c == '<' ||
      c == '&') {
    return Literal(pos, out);
  }
  if (c == '#') return NumericRef(text, pos, out);
  // Longest name that prefixes the text after '&': names are [A-Za-z0-9]+
  // with an optional final ';'.
  size_t run = 0;
  while (next + run < text.size() && run < kLongestCharRefName && IsAsciiAlnum(text[next + run])) {
    ++run;
  }
  if (next + run < text.size() && text[next + run] == ';' && run < kLongestCharRefName) ++run;
  for (size_t length = run; length > 0; --length) {
    const NamedCharRef* ref = FindNamed(text.substr(next, length));
    if (ref == nullptr) continue;
    const size_t after = next + length;
    if (ref->name.back() != ';' && after < text.size() &&
        (text[after] == '=' || IsAsciiAlnum(text[after]))) {
      return Literal(pos, out);  // the historical rule: "&ampx" stays as written
    }
    out->append(ref->utf8);
    *pos = after;
    return CharRefResult::kDecoded;
  }
  return Literal(pos, out);
}

}  // namespace crawler::links_internal
