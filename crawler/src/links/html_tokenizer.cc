// TokenizerCore: the byte-level states of the tokenizer, which need nothing
// from the sink. Attribute values are decoded as Gumbo stores them.
#include "links/html_tokenizer.h"

#include <utility>

#include "links/char_refs.h"

namespace crawler::links_internal {

size_t TokenizerCore::ReadOtherTagName(size_t start) {
  lowered_name_.clear();
  size_t i = start;
  for (; i < html_.size() && !EndsTagName(html_[i]); ++i) {
    const char c = html_[i];
    if (c == '\0') {
      lowered_name_ += "\xEF\xBF\xBD";
    } else {
      lowered_name_.push_back(AsciiLower(c));
    }
  }
  name_ = lowered_name_;
  return i;
}

// The attribute states (Gumbo's tokenizer.c).
size_t TokenizerCore::ReadAttributes(size_t i, StartTag* out, bool svg, bool* ok) {
  const size_t n = html_.size();
  self_closing_ = false;
  names_.clear();
  for (;;) {
    // Before attribute name.
    while (i < n && IsHtmlSpace(html_[i])) ++i;
    if (i >= n) return std::string_view::npos;
    if (html_[i] == '>') return i + 1;
    if (html_[i] == '/') {
      // Self-closing start tag state: '>' ends, else reconsume.
      ++i;
      if (i >= n) return std::string_view::npos;
      if (html_[i] == '>') {
        self_closing_ = true;
        return i + 1;
      }
      continue;
    }
    // Attribute name: the first character may be anything, even '='.
    const size_t name_start = i;
    ++i;
    while (i < n && !IsHtmlByte(html_[i], kHtmlSpace | kSlash | kGt | kEquals)) ++i;
    // Gumbo drops a NUL that starts a name (it goes to its temporary
    // buffer, not the name): "\0content" is "content".
    const size_t compared = html_[name_start] == '\0' ? name_start + 1 : name_start;
    const std::string_view raw_name = html_.substr(compared, i - compared);
    const int attr = out == nullptr ? -1 : LinkAttrOf(raw_name, svg);
    const bool duplicate = out != nullptr && SeenBefore(raw_name, ok);
    // After attribute name.
    while (i < n && IsHtmlSpace(html_[i])) ++i;
    if (i >= n) return std::string_view::npos;
    if (duplicate && html_[i] != '=') {
      // Gumbo keeps a duplicate name without a value in its buffer, in
      // front of the next attribute's name ("=href" for "= = href").
      why_ = "duplicate attribute without a value";
      *ok = false;
    }
    if (!*ok) return std::string_view::npos;
    if (html_[i] != '=') {
      // No value: "" for a wanted attribute; '/', '>' or a new name follow.
      if (attr >= 0 && !out->attrs[attr]) out->attrs[attr] = std::string_view();
      continue;
    }
    ++i;
    // Before attribute value.
    while (i < n && IsHtmlSpace(html_[i])) ++i;
    if (i >= n) return std::string_view::npos;
    size_t value_start = i;
    size_t value_end = 0;
    char allowed = '>';
    const char c = html_[i];
    if (c == '>') {
      if (attr >= 0 && !out->attrs[attr]) out->attrs[attr] = std::string_view();
      return i + 1;
    }
    if (c == '"' || c == '\'') {
      value_start = i + 1;
      value_end = html_.find(c, value_start);
      if (value_end == std::string_view::npos) return std::string_view::npos;
      allowed = c;
      i = value_end + 1;  // after attribute value (quoted): anything else reconsumes
    } else {
      while (i < n && !IsHtmlByte(html_[i], kHtmlSpace | kGt)) ++i;
      if (i >= n) return std::string_view::npos;
      value_end = i;
    }
    if (attr >= 0 && !out->attrs[attr]) {
      std::optional<std::string_view> value = DecodeValue(value_start, value_end, allowed);
      if (!value) {
        why_ = "attribute value not decodable with certainty";
        *ok = false;
        return std::string_view::npos;
      }
      out->attrs[attr] = *value;
    }
  }
}

// Whether a tag read for its attributes already had this name (which
// Gumbo then drops, value and all). Names Gumbo would rewrite (NUL,
// controls, non-ASCII) are not compared: *ok = false.
bool TokenizerCore::SeenBefore(std::string_view name, bool* ok) {
  for (const char c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F) {
      why_ = "attribute name Gumbo rewrites";
      *ok = false;
      return false;
    }
  }
  for (const std::string_view seen : names_) {
    if (EqualsIgnoreCase(seen, name)) return true;
  }
  names_.push_back(name);
  return false;
}

// An attribute value as Gumbo stores it: references decoded, CR and CRLF
// as LF, NUL and the code points Gumbo's input stream replaces as U+FFFD.
// nullopt: not decodable with certainty (invalid UTF-8, overflowing
// numeric reference).
std::optional<std::string_view> TokenizerCore::DecodeValue(size_t begin, size_t end, char allowed) {
  bool plain = true;
  for (size_t i = begin; i < end && plain; ++i) {
    const unsigned char c = static_cast<unsigned char>(html_[i]);
    plain = c >= 0x20 ? (c < 0x7F && c != '&') : (c == '\t' || c == '\n' || c == '\f');
  }
  if (plain) return html_.substr(begin, end - begin);
  std::string value;
  value.reserve(end - begin);
  size_t i = begin;
  while (i < end) {
    const unsigned char c = static_cast<unsigned char>(html_[i]);
    if (c == '&') {
      if (AppendAttributeCharRef(html_, &i, allowed, &value) == CharRefResult::kUnsure) {
        return std::nullopt;
      }
    } else if (c == '\r') {
      value.push_back('\n');
      i += (i + 1 < end && html_[i + 1] == '\n') ? 2 : 1;
    } else if (c == 0 || (c < 0x20 && c != '\t' && c != '\n' && c != '\f') || c == 0x7F) {
      value += "\xEF\xBF\xBD";
      ++i;
    } else if (c < 0x80) {
      value.push_back(static_cast<char>(c));
      ++i;
    } else if (!AppendUtf8Char(end, &i, &value)) {
      return std::nullopt;
    }
  }
  return storage_->emplace_back(std::move(value));
}

// One UTF-8 sequence at *i (before `end`); the code points Gumbo's input
// stream replaces (C1 controls, noncharacters) become U+FFFD. False for an
// invalid sequence.
bool TokenizerCore::AppendUtf8Char(size_t end, size_t* i, std::string* out) const {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(html_[*i + k]); };
  const unsigned char lead = byte(0);
  size_t length = 0;
  char32_t cp = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    cp = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    cp = lead & 0x0F;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    cp = lead & 0x07;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return false;
  }
  if (*i + length > end) return false;
  for (size_t k = 1; k < length; ++k) {
    const unsigned char b = byte(k);
    if (k == 1 ? (b < low || b > high) : (b < 0x80 || b > 0xBF)) return false;
    cp = (cp << 6) | (b & 0x3F);
  }
  if ((cp >= 0x80 && cp <= 0x9F) || (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE) {
    *out += "\xEF\xBF\xBD";
  } else {
    out->append(html_.substr(*i, length));
  }
  *i += length;
  return true;
}

// "<!-->" and "<!--->" are whole comments; others end at "-->" or "--!>".
size_t TokenizerCore::CommentEnd(size_t body) const {
  if (html_.substr(body, 1) == ">") return body + 1;
  if (html_.substr(body, 2) == "->") return body + 2;
  const size_t dash = html_.find("-->", body);
  const size_t bang = html_.find("--!>", body);
  if (dash == std::string_view::npos && bang == std::string_view::npos) {
    return std::string_view::npos;
  }
  return dash <= bang ? dash + 3 : bang + 4;
}

size_t TokenizerCore::RawTextEnd(std::string_view name) const {
  size_t at = pos_;
  for (;;) {
    const size_t lt = html_.find("</", at);
    if (lt == std::string_view::npos || lt + 2 + name.size() >= html_.size()) {
      return std::string_view::npos;
    }
    if (EqualsIgnoreCase(html_.substr(lt + 2, name.size()), name) &&
        EndsTagName(html_[lt + 2 + name.size()])) {
      return lt;
    }
    at = lt + 1;
  }
}

bool TokenizerCore::IsScriptEndAt(size_t lt) const {
  return lt + 8 < html_.size() && html_[lt + 1] == '/' &&
         EqualsIgnoreCase(html_.substr(lt + 2, 6), "script") && EndsTagName(html_[lt + 8]);
}

// After "<" + letters in an escaped state: the letters lowercased and
// whether they say "script", and where they end.
bool TokenizerCore::LettersSayScript(size_t from, size_t* end) const {
  size_t i = from;
  while (i < html_.size() && IsAsciiLetter(html_[i])) ++i;
  *end = i;
  return EqualsIgnoreCase(html_.substr(from, i - from), "script");
}

size_t TokenizerCore::ScriptEnd() const {
  enum class S {
    kData,
    kEscaped,
    kEscapedDash,
    kEscapedDashDash,
    kDouble,
    kDoubleDash,
    kDoubleDashDash
  };
  S s = S::kData;
  size_t i = pos_;
  const size_t n = html_.size();
  while (i < n) {
    const char c = html_[i];
    switch (s) {
      case S::kData:
        if (c == '<') {
          if (IsScriptEndAt(i)) return i;
          if (html_.substr(i, 4) == "<!--") {
            s = S::kEscapedDashDash;
            i += 4;
            continue;
          }
        }
        ++i;
        continue;
      case S::kEscaped:
      case S::kEscapedDash:
      case S::kEscapedDashDash:
        if (c == '-') {
          s = s == S::kEscaped ? S::kEscapedDash : S::kEscapedDashDash;
          ++i;
          continue;
        }
        if (c == '>' && s == S::kEscapedDashDash) {
          s = S::kData;
          ++i;
          continue;
        }
        if (c != '<') {
          s = S::kEscaped;
          ++i;
          continue;
        }
        // Escaped less-than sign.
        s = S::kEscaped;
        if (i + 1 < n && html_[i + 1] == '/') {
          if (IsScriptEndAt(i)) return i;
          i += 1;
          continue;
        }
        if (i + 1 < n && IsAsciiLetter(html_[i + 1])) {
          size_t end = 0;
          const bool script = LettersSayScript(i + 1, &end);
          if (end >= n) return n;
          if (EndsTagName(html_[end])) {
            if (script) s = S::kDouble;
            i = end + 1;
          } else {
            i = end;
          }
          continue;
        }
        i += 1;
        continue;
      case S::kDouble:
      case S::kDoubleDash:
      case S::kDoubleDashDash:
        if (c == '-') {
          s = s == S::kDouble ? S::kDoubleDash : S::kDoubleDashDash;
          ++i;
          continue;
        }
        if (c == '>' && s == S::kDoubleDashDash) {
          s = S::kData;
          ++i;
          continue;
        }
        if (c != '<') {
          s = S::kDouble;
          ++i;
          continue;
        }
        // Double escaped less-than sign.
        s = S::kDouble;
        if (i + 1 < n && html_[i + 1] == '/') {
          size_t end = 0;
          const bool script = LettersSayScript(i + 2, &end);
          if (end >= n) return n;
          if (EndsTagName(html_[end])) {
            if (script) s = S::kEscaped;
            i = end + 1;
          } else {
            i = end;
          }
          continue;
        }
        i += 1;
        continue;
    }
  }
  return n;
}

}  // namespace crawler::links_internal
