#include "links/content_tokens.h"

#include <cstddef>

#include "links/ascii.h"

namespace crawler::links_internal {
namespace {

// FNV-1a, 64 bits: tokens are short (a word, a tag name), where it is as good
// as any and needs nothing; the shingles built on it are mixed again
// (page_fingerprint.cc).
constexpr uint64_t kFnvOffset = 14695981039346656037ULL;
constexpr uint64_t kFnvPrime = 1099511628211ULL;

// Seeds each token's hash, so that "p" the word and <p> the tag differ.
enum TokenKind : uint8_t { kWord = 1, kStartTag, kEndTag, kAttribute, kId };

uint64_t HashToken(TokenKind kind, std::string_view bytes) {
  uint64_t hash = (kFnvOffset ^ kind) * kFnvPrime;
  for (const char c : bytes) hash = (hash ^ static_cast<unsigned char>(AsciiLower(c))) * kFnvPrime;
  return hash;
}

bool IsWordByte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || (u >= '0' && u <= '9') || IsAsciiLetter(c);
}

// Bytes of a tag or attribute name: up to space, '/', '=' or '>'.
bool IsNameByte(char c) { return !IsHtmlByte(c, kHtmlSpace | kGt | kSlash | kEquals); }

// One past the first `end` at or after `from`, or html.size().
size_t PastNext(std::string_view html, size_t from, std::string_view end) {
  const size_t at = html.find(end, from);
  return at == std::string_view::npos ? html.size() : at + end.size();
}

// From just after an attribute's name: one past its value, or `at` when it
// has none. The value itself is never read.
size_t PastAttributeValue(std::string_view html, size_t at) {
  size_t i = at;
  while (i < html.size() && IsHtmlSpace(html[i])) ++i;
  if (i >= html.size() || html[i] != '=') return at;
  ++i;
  while (i < html.size() && IsHtmlSpace(html[i])) ++i;
  if (i < html.size() && (html[i] == '"' || html[i] == '\''))
    return PastNext(html, i + 1, html.substr(i, 1));
  while (i < html.size() && !IsHtmlByte(html[i], kHtmlSpace | kGt)) ++i;
  return i;
}

// The tag whose '<' is at `at` (a letter or "/" and a letter follows): its
// name and attribute names go to `on_token`. Returns one past its '>'.
size_t ReadTag(std::string_view html, size_t at, absl::FunctionRef<void(uint64_t)> on_token) {
  const bool end_tag = html[at + 1] == '/';
  size_t i = at + (end_tag ? 2 : 1);
  const size_t name = i;
  while (i < html.size() && IsNameByte(html[i])) ++i;
  on_token(HashToken(end_tag ? kEndTag : kStartTag, html.substr(name, i - name)));
  while (i < html.size()) {
    if (html[i] == '>') return i + 1;
    if (IsHtmlByte(html[i], kHtmlSpace | kSlash)) {
      ++i;
      continue;
    }
    const size_t attribute = i++;  // a leading '=' belongs to the name, as in HTML
    while (i < html.size() && IsNameByte(html[i])) ++i;
    on_token(HashToken(kAttribute, html.substr(attribute, i - attribute)));
    i = PastAttributeValue(html, i);
  }
  return html.size();
}

bool OpensTag(std::string_view html, size_t at) {
  if (at + 1 >= html.size()) return false;
  if (IsAsciiLetter(html[at + 1])) return true;
  return html[at + 1] == '/' && at + 2 < html.size() && IsAsciiLetter(html[at + 2]);
}

}  // namespace

bool LooksLikeId(std::string_view word) {
  if (word.size() < 8) return false;
  for (const char c : word) {
    if (c >= '0' && c <= '9') return true;
  }
  return false;
}

void ForEachContentToken(std::string_view html, absl::FunctionRef<void(uint64_t)> on_token) {
  static const uint64_t kIdHash = HashToken(kId, "");
  size_t i = 0;
  while (i < html.size()) {
    if (html[i] == '<') {
      if (html.substr(i, 4) == "<!--") {
        i = PastNext(html, i + 4, "-->");
      } else if (i + 1 < html.size() && (html[i + 1] == '!' || html[i + 1] == '?')) {
        i = PastNext(html, i + 2, ">");  // doctype, CDATA, processing instruction
      } else if (OpensTag(html, i)) {
        i = ReadTag(html, i, on_token);
      } else {
        ++i;  // a '<' that opens nothing is text
      }
      continue;
    }
    if (!IsWordByte(html[i])) {
      ++i;
      continue;
    }
    const size_t word = i;
    while (i < html.size() && IsWordByte(html[i])) ++i;
    const std::string_view text = html.substr(word, i - word);
    on_token(LooksLikeId(text) ? kIdHash : HashToken(kWord, text));
  }
}

}  // namespace crawler::links_internal
