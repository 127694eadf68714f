// Canonical octets and wildcard matching for robots.txt rules.
#include "robots/pattern.h"

#include <cstddef>

namespace crawler::robots_internal {
namespace {

constexpr char kHexDigits[] = "0123456789ABCDEF";

bool IsUnreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

bool IsReserved(unsigned char c) {
  switch (c) {
    case ':':
    case '/':
    case '?':
    case '#':
    case '[':
    case ']':
    case '@':
    case '!':
    case '$':
    case '&':
    case '\'':
    case '(':
    case ')':
    case '*':
    case '+':
    case ',':
    case ';':
    case '=':
      return true;
    default:
      return false;
  }
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// The escaped octet at text[i] ('%'), or -1 when no two hex digits follow.
int EscapedOctet(std::string_view text, size_t i) {
  if (i + 2 >= text.size()) return -1;
  int high = HexValue(text[i + 1]);
  int low = HexValue(text[i + 2]);
  return high < 0 || low < 0 ? -1 : high * 16 + low;
}

void AppendEscape(unsigned char octet, std::string* out) {
  out->push_back('%');
  out->push_back(kHexDigits[octet >> 4]);
  out->push_back(kHexDigits[octet & 15]);
}

// Appends the canonical form of text[i...] for one unit (an escape or an
// octet) and returns how many input octets it used.
size_t AppendCanonicalUnit(std::string_view text, size_t i, std::string* out) {
  const unsigned char c = static_cast<unsigned char>(text[i]);
  if (c == '%') {
    const int octet = EscapedOctet(text, i);
    if (octet < 0) {
      AppendEscape(c, out);
      return 1;
    }
    if (IsUnreserved(static_cast<unsigned char>(octet)) || octet == '*' || octet == '$') {
      out->push_back(static_cast<char>(octet));
    } else {
      AppendEscape(static_cast<unsigned char>(octet), out);
    }
    return 3;
  }
  if (IsUnreserved(c) || IsReserved(c)) {
    out->push_back(static_cast<char>(c));
  } else {
    AppendEscape(c, out);
  }
  return 1;
}

// True if canonicalizing `text` could change it.
bool NeedsRewrite(std::string_view text) {
  for (unsigned char c : text) {
    if (c == '%' || !(IsUnreserved(c) || IsReserved(c))) return true;
  }
  return false;
}

}  // namespace

std::string_view CanonicalTarget(std::string_view target, std::string* scratch) {
  if (!NeedsRewrite(target)) return target;
  scratch->clear();
  scratch->reserve(target.size() + 8);
  for (size_t i = 0; i < target.size();) i += AppendCanonicalUnit(target, i, scratch);
  return *scratch;
}

std::optional<std::string> CompilePattern(std::string_view value) {
  if (value.empty() || (value[0] != '/' && value[0] != '*')) return std::nullopt;
  std::string compiled;
  compiled.reserve(value.size() + 8);
  for (size_t i = 0; i < value.size();) {
    if (value[i] == '*') {
      // Runs of '*' mean the same as one.
      if (compiled.empty() || compiled.back() != kWildcard) compiled.push_back(kWildcard);
      ++i;
    } else if (value[i] == '$' && i + 1 == value.size()) {
      compiled.push_back(kEndAnchor);
      ++i;
    } else {
      i += AppendCanonicalUnit(value, i, &compiled);
    }
  }
  return compiled;
}

bool PatternMatches(std::string_view pattern, std::string_view target) {
  const bool anchored = !pattern.empty() && pattern.back() == kEndAnchor;
  if (anchored) pattern.remove_suffix(1);
  size_t star = pattern.find(kWildcard);
  // The first piece is anchored at the start of the target.
  std::string_view piece = pattern.substr(0, star);
  if (target.substr(0, piece.size()) != piece) return false;
  if (star == std::string_view::npos) return !anchored || target.size() == piece.size();
  size_t pos = piece.size();
  for (;;) {
    const size_t begin = star + 1;
    star = pattern.find(kWildcard, begin);
    piece = pattern.substr(begin,
                           star == std::string_view::npos ? std::string_view::npos : star - begin);
    if (star == std::string_view::npos) break;
    const size_t found = target.find(piece, pos);
    if (found == std::string_view::npos) return false;
    pos = found + piece.size();
  }
  // The last piece: anywhere after pos, or at the very end when anchored.
  if (anchored) {
    return target.size() >= pos + piece.size() &&
           target.substr(target.size() - piece.size()) == piece;
  }
  return target.find(piece, pos) != std::string_view::npos;
}

}  // namespace crawler::robots_internal
