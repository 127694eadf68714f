// PrescanMetaCharset: the HTML standard's "prescan a byte stream to determine
// its encoding" (13.2.3.2), simplified: it returns the label as written and
// leaves its interpretation (utf-16 means utf-8, unknown labels) to the
// caller. Only the first 1024 bytes are looked at, as in the standard.
#include <string_view>

#include "crawler/charset.h"
#include "links/ascii.h"

namespace crawler {
namespace {

using links_internal::EqualsIgnoreCase;
using links_internal::IsHtmlSpace;
using links_internal::StartsWithIgnoreCase;
using links_internal::TrimHtmlSpace;

constexpr size_t kPrescanBytes = 1024;

bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// A cursor over the prescanned bytes; running off the end means "give up".
struct Cursor {
  std::string_view text;
  size_t pos = 0;

  bool AtEnd() const { return pos >= text.size(); }
  char Peek() const { return text[pos]; }
  void SkipSpace() {
    while (!AtEnd() && IsHtmlSpace(Peek())) ++pos;
  }
  void SkipPast(char c) {
    const size_t found = text.find(c, pos);
    pos = found == std::string_view::npos ? text.size() : found + 1;
  }
};

struct Attribute {
  std::string_view name;  // as written; compared case-insensitively
  std::string_view value;
};

// The standard's "get an attribute": false when the tag ends (or the bytes do).
bool NextAttribute(Cursor& in, Attribute& attr) {
  while (!in.AtEnd() && (IsHtmlSpace(in.Peek()) || in.Peek() == '/')) ++in.pos;
  if (in.AtEnd() || in.Peek() == '>') return false;
  const size_t name_start = in.pos;
  ++in.pos;  // the first character belongs to the name even if it is '='
  while (!in.AtEnd() && in.Peek() != '=' && in.Peek() != '/' && in.Peek() != '>' &&
         !IsHtmlSpace(in.Peek())) {
    ++in.pos;
  }
  attr.name = in.text.substr(name_start, in.pos - name_start);
  attr.value = {};
  in.SkipSpace();
  if (in.AtEnd() || in.Peek() != '=') return !in.AtEnd();
  ++in.pos;
  in.SkipSpace();
  if (in.AtEnd()) return false;
  const char quote = in.Peek();
  if (quote == '"' || quote == '\'') {
    const size_t close = in.text.find(quote, in.pos + 1);
    if (close == std::string_view::npos) return false;
    attr.value = in.text.substr(in.pos + 1, close - in.pos - 1);
    in.pos = close + 1;
    return true;
  }
  const size_t value_start = in.pos;
  while (!in.AtEnd() && in.Peek() != '>' && !IsHtmlSpace(in.Peek())) ++in.pos;
  attr.value = in.text.substr(value_start, in.pos - value_start);
  return !in.AtEnd();
}

// The standard's "extract a character encoding from a meta element", for
// content="text/html; charset=...".
std::string_view CharsetFromMetaContent(std::string_view content) {
  size_t pos = 0;
  while (true) {
    size_t found = std::string_view::npos;
    for (size_t i = pos; i + 7 <= content.size(); ++i) {
      if (StartsWithIgnoreCase(content.substr(i), "charset")) {
        found = i;
        break;
      }
    }
    if (found == std::string_view::npos) return {};
    pos = found + 7;
    while (pos < content.size() && IsHtmlSpace(content[pos])) ++pos;
    if (pos < content.size() && content[pos] == '=') break;
  }
  ++pos;
  while (pos < content.size() && IsHtmlSpace(content[pos])) ++pos;
  if (pos >= content.size()) return {};
  const char quote = content[pos];
  if (quote == '"' || quote == '\'') {
    const size_t close = content.find(quote, pos + 1);
    if (close == std::string_view::npos) return {};
    return content.substr(pos + 1, close - pos - 1);
  }
  size_t end = pos;
  while (end < content.size() && !IsHtmlSpace(content[end]) && content[end] != ';') ++end;
  return content.substr(pos, end - pos);
}

// After "<meta" and a space or '/': the label this element declares, if any.
std::string_view MetaElementCharset(Cursor& in) {
  bool got_pragma = false;
  bool need_pragma = false;
  bool have_charset_attr = false;
  std::string_view charset;
  Attribute attr;
  while (NextAttribute(in, attr)) {
    if (EqualsIgnoreCase(attr.name, "http-equiv")) {
      got_pragma = got_pragma || EqualsIgnoreCase(TrimHtmlSpace(attr.value), "content-type");
    } else if (EqualsIgnoreCase(attr.name, "charset") && !have_charset_attr) {
      have_charset_attr = true;
      charset = TrimHtmlSpace(attr.value);
      need_pragma = false;
    } else if (EqualsIgnoreCase(attr.name, "content") && !have_charset_attr && charset.empty()) {
      charset = TrimHtmlSpace(CharsetFromMetaContent(attr.value));
      need_pragma = !charset.empty();
    }
  }
  if (charset.empty() || (need_pragma && !got_pragma)) return {};
  return charset;
}

}  // namespace

std::string_view PrescanMetaCharset(std::string_view body) {
  Cursor in{body.substr(0, kPrescanBytes)};
  while (!in.AtEnd()) {
    const size_t lt = in.text.find('<', in.pos);
    if (lt == std::string_view::npos) return {};
    in.pos = lt;
    const std::string_view rest = in.text.substr(lt);
    if (rest.starts_with("<!--")) {
      const size_t close = in.text.find("-->", lt + 2);
      if (close == std::string_view::npos) return {};
      in.pos = close + 3;
    } else if (StartsWithIgnoreCase(rest, "<meta") && rest.size() > 5 &&
               (IsHtmlSpace(rest[5]) || rest[5] == '/')) {
      in.pos += 6;
      const std::string_view charset = MetaElementCharset(in);
      if (!charset.empty()) return charset;
    } else if (rest.size() > 1 && (IsAsciiAlpha(rest[1]) ||
                                   (rest[1] == '/' && rest.size() > 2 && IsAsciiAlpha(rest[2])))) {
      // Another tag: skip its name and attributes, whose values may hold '>'.
      while (!in.AtEnd() && !IsHtmlSpace(in.Peek()) && in.Peek() != '>') ++in.pos;
      Attribute ignored;
      while (NextAttribute(in, ignored)) {
      }
      ++in.pos;
    } else if (rest.size() > 1 && (rest[1] == '!' || rest[1] == '/' || rest[1] == '?')) {
      in.SkipPast('>');
    } else {
      ++in.pos;
    }
  }
  return {};
}

}  // namespace crawler
