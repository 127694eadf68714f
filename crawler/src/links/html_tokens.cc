// rel tokens, robots directives and the meta refresh grammar.
#include "links/html_tokens.h"

#include "links/ascii.h"

namespace crawler::links_internal {
namespace {

// Calls `is_separator` to split `list` and reports whether `token` is a piece.
template <typename IsSeparator>
bool HasPiece(std::string_view list, std::string_view token, IsSeparator is_separator) {
  size_t start = 0;
  while (start < list.size()) {
    while (start < list.size() && is_separator(list[start])) ++start;
    size_t end = start;
    while (end < list.size() && !is_separator(list[end])) ++end;
    if (end > start && EqualsIgnoreCase(list.substr(start, end - start), token)) return true;
    start = end;
  }
  return false;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

void SkipSpace(std::string_view& s) {
  while (!s.empty() && IsHtmlSpace(s.front())) s.remove_prefix(1);
}

// Consumes one expected character, case-insensitively.
bool Consume(std::string_view& s, char lower) {
  if (s.empty() || AsciiLower(s.front()) != lower) return false;
  s.remove_prefix(1);
  return true;
}

}  // namespace

bool HasRelToken(std::string_view list, std::string_view token) {
  return HasPiece(list, token, IsHtmlSpace);
}

bool RobotsContentSaysNofollow(std::string_view content) {
  auto separator = [](char c) { return c == ',' || IsHtmlSpace(c); };
  return HasPiece(content, "nofollow", separator) || HasPiece(content, "none", separator);
}

std::optional<std::string_view> MetaRefreshUrl(std::string_view s) {
  SkipSpace(s);
  // The delay: digits, then any digits and dots ("5", "0.5", ".5").
  if (s.empty() || (!IsDigit(s.front()) && s.front() != '.')) return std::nullopt;
  while (!s.empty() && (IsDigit(s.front()) || s.front() == '.')) s.remove_prefix(1);
  if (s.empty()) return std::nullopt;  // "5": refresh the page itself
  if (s.front() != ';' && s.front() != ',' && !IsHtmlSpace(s.front())) return std::nullopt;
  SkipSpace(s);
  if (!s.empty() && (s.front() == ';' || s.front() == ',')) s.remove_prefix(1);
  SkipSpace(s);
  if (s.empty()) return std::nullopt;
  // "url=" is optional; a partial "ur..." is part of the URL itself.
  const std::string_view url_without_prefix = s;
  std::string_view rest = s;
  if (Consume(rest, 'u')) {
    if (!Consume(rest, 'r') || !Consume(rest, 'l')) return url_without_prefix;
    SkipSpace(rest);
    if (!Consume(rest, '=')) return url_without_prefix;
    SkipSpace(rest);
    s = rest;
  }
  if (!s.empty() && (s.front() == '"' || s.front() == '\'')) {
    const char quote = s.front();
    s.remove_prefix(1);
    s = s.substr(0, s.find(quote));
  }
  s = TrimHtmlSpace(s);
  if (s.empty()) return std::nullopt;
  return s;
}

}  // namespace crawler::links_internal
