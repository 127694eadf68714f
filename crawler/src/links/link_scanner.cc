// ScanRawLinks: a tokenizer (Scanner's Run/Markup/...Tag/Skip... methods)
// feeding a model of Gumbo's tree builder (the On...Tag methods). Tags are
// Gumbo's own enum (gumbo_tagn_enum), so that two unknown tags compare
// equal exactly where Gumbo 0.10.1 says they do. Every method that meets
// what the model does not follow returns false: the caller then parses with
// Gumbo.
#include "links/link_scanner.h"

#include <gumbo.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "links/ascii.h"
#include "links/char_refs.h"
#include "links/link_collector.h"

namespace crawler::links_internal {
namespace {

// Beyond this many open elements the scope searches would cost too much per
// tag; Gumbo takes such a page (the nesting guard allows 4096).
constexpr size_t kMaxModelDepth = 1024;

bool EndsTagName(char c) { return IsHtmlSpace(c) || c == '/' || c == '>'; }

bool AllHtmlSpace(std::string_view text) {
  for (const char c : text) {
    if (!IsHtmlSpace(c)) return false;
  }
  return true;
}

// Gumbo's "special" category, HTML namespace.
bool IsSpecial(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_ADDRESS:
    case GUMBO_TAG_APPLET:
    case GUMBO_TAG_AREA:
    case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BASE:
    case GUMBO_TAG_BASEFONT:
    case GUMBO_TAG_BGSOUND:
    case GUMBO_TAG_BLOCKQUOTE:
    case GUMBO_TAG_BODY:
    case GUMBO_TAG_BR:
    case GUMBO_TAG_BUTTON:
    case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_CENTER:
    case GUMBO_TAG_COL:
    case GUMBO_TAG_COLGROUP:
    case GUMBO_TAG_MENUITEM:
    case GUMBO_TAG_DD:
    case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_DIR:
    case GUMBO_TAG_DIV:
    case GUMBO_TAG_DL:
    case GUMBO_TAG_DT:
    case GUMBO_TAG_EMBED:
    case GUMBO_TAG_FIELDSET:
    case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_FORM:
    case GUMBO_TAG_FRAME:
    case GUMBO_TAG_FRAMESET:
    case GUMBO_TAG_H1:
    case GUMBO_TAG_H2:
    case GUMBO_TAG_H3:
    case GUMBO_TAG_H4:
    case GUMBO_TAG_H5:
    case GUMBO_TAG_H6:
    case GUMBO_TAG_HEAD:
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_HGROUP:
    case GUMBO_TAG_HR:
    case GUMBO_TAG_HTML:
    case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_IMG:
    case GUMBO_TAG_INPUT:
    case GUMBO_TAG_ISINDEX:
    case GUMBO_TAG_LI:
    case GUMBO_TAG_LINK:
    case GUMBO_TAG_LISTING:
    case GUMBO_TAG_MARQUEE:
    case GUMBO_TAG_MENU:
    case GUMBO_TAG_META:
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_NOEMBED:
    case GUMBO_TAG_NOFRAMES:
    case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_OBJECT:
    case GUMBO_TAG_OL:
    case GUMBO_TAG_P:
    case GUMBO_TAG_PARAM:
    case GUMBO_TAG_PLAINTEXT:
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_SECTION:
    case GUMBO_TAG_SELECT:
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_SUMMARY:
    case GUMBO_TAG_TABLE:
    case GUMBO_TAG_TBODY:
    case GUMBO_TAG_TD:
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_TEXTAREA:
    case GUMBO_TAG_TFOOT:
    case GUMBO_TAG_TH:
    case GUMBO_TAG_THEAD:
    case GUMBO_TAG_TITLE:
    case GUMBO_TAG_TR:
    case GUMBO_TAG_UL:
    case GUMBO_TAG_WBR:
    case GUMBO_TAG_XMP:
      return true;
    default:
      return false;
  }
}

// The elements of the list of active formatting elements.
bool IsFormatting(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_A:
    case GUMBO_TAG_B:
    case GUMBO_TAG_BIG:
    case GUMBO_TAG_CODE:
    case GUMBO_TAG_EM:
    case GUMBO_TAG_FONT:
    case GUMBO_TAG_I:
    case GUMBO_TAG_NOBR:
    case GUMBO_TAG_S:
    case GUMBO_TAG_SMALL:
    case GUMBO_TAG_STRIKE:
    case GUMBO_TAG_STRONG:
    case GUMBO_TAG_TT:
    case GUMBO_TAG_U:
      return true;
    default:
      return false;
  }
}

// Start tags that close an open <p> in button scope and open a block.
bool IsBlockStart(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_ADDRESS:
    case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BLOCKQUOTE:
    case GUMBO_TAG_CENTER:
    case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_DIR:
    case GUMBO_TAG_DIV:
    case GUMBO_TAG_DL:
    case GUMBO_TAG_FIELDSET:
    case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_HGROUP:
    case GUMBO_TAG_MENU:
    case GUMBO_TAG_MAIN:
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_OL:
    case GUMBO_TAG_P:
    case GUMBO_TAG_SECTION:
    case GUMBO_TAG_SUMMARY:
    case GUMBO_TAG_UL:
      return true;
    default:
      return false;
  }
}

// End tags closed with "has an element in scope" then pop until it.
bool IsBlockEnd(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_ADDRESS:
    case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BLOCKQUOTE:
    case GUMBO_TAG_BUTTON:
    case GUMBO_TAG_CENTER:
    case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_DIR:
    case GUMBO_TAG_DIV:
    case GUMBO_TAG_DL:
    case GUMBO_TAG_FIELDSET:
    case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_HGROUP:
    case GUMBO_TAG_LISTING:
    case GUMBO_TAG_MAIN:
    case GUMBO_TAG_MENU:
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_OL:
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_SECTION:
    case GUMBO_TAG_SUMMARY:
    case GUMBO_TAG_UL:
      return true;
    default:
      return false;
  }
}

bool IsHeading(GumboTag tag) { return tag >= GUMBO_TAG_H1 && tag <= GUMBO_TAG_H6; }

bool IsImpliedEnd(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_DD:
    case GUMBO_TAG_DT:
    case GUMBO_TAG_LI:
    case GUMBO_TAG_OPTGROUP:
    case GUMBO_TAG_OPTION:
    case GUMBO_TAG_P:
    case GUMBO_TAG_RB:
    case GUMBO_TAG_RP:
    case GUMBO_TAG_RT:
    case GUMBO_TAG_RTC:
      return true;
    default:
      return false;
  }
}

bool IsTableSection(GumboTag tag) {
  return tag == GUMBO_TAG_TBODY || tag == GUMBO_TAG_THEAD || tag == GUMBO_TAG_TFOOT;
}

// The current nodes of the "in table", "in table body" and "in row" modes.
bool IsTableContext(GumboTag tag) {
  return tag == GUMBO_TAG_TABLE || IsTableSection(tag) || tag == GUMBO_TAG_TR;
}

// Table parts that close a cell or a caption when they start.
bool IsTablePartStart(GumboTag tag) {
  return tag == GUMBO_TAG_CAPTION || tag == GUMBO_TAG_COL || tag == GUMBO_TAG_COLGROUP ||
         IsTableSection(tag) || tag == GUMBO_TAG_TD || tag == GUMBO_TAG_TH || tag == GUMBO_TAG_TR;
}

enum class Scope { kDefault, kListItem, kButton, kTable };

bool BoundsScope(GumboTag tag, Scope scope) {
  if (tag == GUMBO_TAG_HTML || tag == GUMBO_TAG_TABLE || tag == GUMBO_TAG_TEMPLATE) return true;
  if (scope == Scope::kTable) return false;
  switch (tag) {
    case GUMBO_TAG_APPLET:
    case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_TD:
    case GUMBO_TAG_TH:
    case GUMBO_TAG_MARQUEE:
    case GUMBO_TAG_OBJECT:
      return true;
    case GUMBO_TAG_OL:
    case GUMBO_TAG_UL:
      return scope == Scope::kListItem;
    case GUMBO_TAG_BUTTON:
      return scope == Scope::kButton;
    default:
      return false;
  }
}

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// TagOf for a name already known to be lowercase letters and digits.
GumboTag TagOfAlnum(std::string_view lower_name) {
  if (lower_name.empty() || lower_name.size() > 8) {
    return gumbo_tagn_enum(lower_name.data(), static_cast<unsigned>(lower_name.size()));
  }
  // A page names the same few tags thousands of times, and Gumbo's lookup
  // (a perfect hash, then a case-insensitive compare) was ~5% of a crawl's
  // CPU: names of up to 8 bytes, packed into a word (no name holds a NUL, so
  // lengths cannot collide), are remembered per thread in 64 direct-mapped
  // slots. A slot's key starts as ~0, which no name packs to.
  struct Slot {
    uint64_t key = ~uint64_t{0};
    GumboTag tag = GUMBO_TAG_UNKNOWN;
  };
  thread_local std::array<Slot, 64> cache;
  uint64_t key = 0;
  std::memcpy(&key, lower_name.data(), lower_name.size());
  Slot& slot = cache[(key * 0x9E3779B97F4A7C15ULL) >> 58];
  if (slot.key != key) {
    slot.key = key;
    slot.tag = gumbo_tagn_enum(lower_name.data(), static_cast<unsigned>(lower_name.size()));
  }
  return slot.tag;
}

GumboTag TagOf(std::string_view lower_name) {
  for (const char c : lower_name) {
    if (!IsLowerAlnum(c)) return GUMBO_TAG_UNKNOWN;
  }
  return TagOfAlnum(lower_name);
}

struct StartTag {
  GumboTag tag = GUMBO_TAG_UNKNOWN;
  std::string_view name;  // lowercased
  bool self_closing = false;
  std::array<std::optional<std::string_view>, kLinkAttrCount> attrs;
};

// How the tokenizer goes on after a start tag.
enum class Next { kData, kRcdata, kRawtext, kScript, kPlaintext, kFallBack };

class Scanner {
 public:
  Scanner(std::string_view html, size_t max_links, std::deque<std::string>& storage)
      : html_(html), storage_(storage), links_(max_links) {
    stack_.reserve(64);
    stack_.push_back(GUMBO_TAG_HTML);
  }

  bool Run() {
    while (pos_ < html_.size()) {
      const void* lt = std::memchr(html_.data() + pos_, '<', html_.size() - pos_);
      const size_t at = lt == nullptr ? html_.size() : static_cast<const char*>(lt) - html_.data();
      if (at > pos_ && !Text(html_.substr(pos_, at - pos_))) return false;
      pos_ = at;
      if (pos_ >= html_.size()) break;
      if (!Markup()) return false;
    }
    return true;
  }

  RawPage Take() { return links_.Take(); }
  const std::string& why() const { return why_; }

 private:
  // ---- Tokenizer ----

  // At a '<' in the data state.
  bool Markup() {
    const size_t next = pos_ + 1;
    if (next >= html_.size()) return TextAt(next);
    const char c = html_[next];
    if (c == '!') return MarkupDeclaration();
    if (c == '?') return SkipBogusComment(next);
    if (c == '/') {
      if (next + 1 >= html_.size()) return TextAt(html_.size());  // "</" at EOF is text
      const char d = html_[next + 1];
      if (IsAsciiLetter(d)) return EndTag(/*tree=*/true);
      if (d == '>') {
        pos_ = next + 2;  // "</>" is dropped
        return true;
      }
      return SkipBogusComment(next + 1);
    }
    if (IsAsciiLetter(c)) return StartTagToken();
    return TextAt(next);  // a '<' that opens nothing is text
  }

  // The text from pos_ to `end`, then go on there.
  bool TextAt(size_t end) {
    const bool ok = Text(html_.substr(pos_, end - pos_));
    pos_ = end;
    return ok;
  }

  bool SkipBogusComment(size_t from) {
    const size_t gt = html_.find('>', from);
    pos_ = gt == std::string_view::npos ? html_.size() : gt + 1;
    return true;
  }

  bool MarkupDeclaration() {
    const std::string_view rest = html_.substr(pos_ + 2);
    if (rest.substr(0, 2) == "--") return SkipComment(pos_ + 4);
    // CDATA only where the current node is foreign (SVG); elsewhere
    // "<![CDATA[" is a bogus comment. DOCTYPE: any '>' ends it.
    if (!foreign_.empty() && rest.substr(0, 7) == "[CDATA[") {
      const size_t end = html_.find("]]>", pos_ + 9);
      pos_ = end == std::string_view::npos ? html_.size() : end + 3;
      return true;
    }
    return SkipBogusComment(pos_ + 2);
  }

  // "<!-->" and "<!--->" are whole comments; others end at "-->" or "--!>",
  // or run to the end.
  bool SkipComment(size_t body) {
    if (html_.substr(body, 1) == ">") {
      pos_ = body + 1;
      return true;
    }
    if (html_.substr(body, 2) == "->") {
      pos_ = body + 2;
      return true;
    }
    const size_t dash = html_.find("-->", body);
    const size_t bang = html_.find("--!>", body);
    if (dash == std::string_view::npos && bang == std::string_view::npos) {
      pos_ = html_.size();
    } else {
      pos_ = dash <= bang ? dash + 3 : bang + 4;
    }
    return true;
  }

  // Reads a tag name from `i`, lowercased, into name_ (a view of the page or
  // of lowered_name_); returns where it ends. Sets name_alnum_ when the name
  // is only lowercase letters and digits.
  size_t ReadTagName(size_t i) {
    // Most names are such, and end at a delimiter: then name_ is the page's
    // own bytes, with nothing copied (the loop below gives the same bytes).
    const size_t start = i;
    while (i < html_.size() && IsLowerAlnum(html_[i])) ++i;
    name_alnum_ = i < html_.size() && EndsTagName(html_[i]);
    if (name_alnum_) {
      name_ = html_.substr(start, i - start);
      return i;
    }
    lowered_name_.clear();
    for (i = start; i < html_.size() && !EndsTagName(html_[i]); ++i) {
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

  bool StartTagToken() {
    size_t i = ReadTagName(pos_ + 1);
    StartTag tag;
    tag.tag = name_alnum_ ? TagOfAlnum(name_) : TagOf(name_);
    const bool wants_values = WantsAttributes(tag.tag);
    bool ok = true;
    i = ReadAttributes(i, wants_values ? &tag : nullptr, &ok);
    if (!ok) return false;
    if (i == std::string_view::npos) {  // EOF inside the tag: it is dropped
      pos_ = html_.size();
      return true;
    }
    pos_ = i;
    const std::string element_name(name_);
    tag.name = element_name;
    tag.self_closing = self_closing_;
    const GumboTag top = stack_.back();
    const Next next = OnStartTag(tag);
    if (next == Next::kFallBack) Why("start tag <" + element_name + "> in <", top);
    switch (next) {
      case Next::kData:
        return true;
      case Next::kRcdata:
      case Next::kRawtext:
        return SkipRawText(element_name);
      case Next::kScript:
        return SkipScript();
      case Next::kPlaintext:
        pos_ = html_.size();
        return true;
      case Next::kFallBack:
        return false;
    }
    return false;
  }

  // An end tag at pos_ ("</" + letter). `tree`: whether the tree builder
  // sees it (not for the end tag that closes raw text).
  bool EndTag(bool tree) {
    size_t i = ReadTagName(pos_ + 2);
    const GumboTag tag = name_alnum_ ? TagOfAlnum(name_) : TagOf(name_);
    end_tag_bare_ = i < html_.size() && html_[i] == '>';
    bool ok = true;
    i = ReadAttributes(i, nullptr, &ok);
    if (!ok) return false;
    if (i == std::string_view::npos) {
      pos_ = html_.size();
      return true;
    }
    pos_ = i;
    const GumboTag top = stack_.back();
    if (!tree || OnEndTag(tag)) return true;
    Why("end tag </" + std::string(name_) + "> in <", top);
    return false;
  }

  GumboNamespaceEnum Namespace() const {
    return foreign_.empty() ? GUMBO_NAMESPACE_HTML : GUMBO_NAMESPACE_SVG;
  }

  bool WantsAttributes(GumboTag tag) const {
    return LinkCollector::ReadsAttributes(tag, Namespace());
  }

  // The attribute states (Gumbo's tokenizer.c) from just after the tag name.
  // Returns one past the '>' that ends the tag, or npos when the input ends
  // first (the tag is dropped). Fills out->attrs (first occurrence wins, as
  // Gumbo drops duplicates) when `out` is not null; *ok = false when a value
  // cannot be decoded with certainty.
  size_t ReadAttributes(size_t i, StartTag* out, bool* ok) {
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
      const int attr = out == nullptr ? -1 : LinkAttrOf(raw_name, !foreign_.empty());
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
  bool SeenBefore(std::string_view name, bool* ok) {
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
  std::optional<std::string_view> DecodeValue(size_t begin, size_t end, char allowed) {
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
    return storage_.emplace_back(std::move(value));
  }

  // One UTF-8 sequence at *i (before `end`); the code points Gumbo's input
  // stream replaces (C1 controls, noncharacters) become U+FFFD. False for an
  // invalid sequence.
  bool AppendUtf8Char(size_t end, size_t* i, std::string* out) {
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

  // RCDATA and RAWTEXT: to the end tag named like the element, then that
  // end tag (with its attributes) as the tokenizer reads it.
  bool SkipRawText(const std::string& name) {
    size_t at = pos_;
    for (;;) {
      const size_t lt = html_.find("</", at);
      if (lt == std::string_view::npos || lt + 2 + name.size() >= html_.size()) {
        pos_ = html_.size();  // the rest is text
        return true;
      }
      if (EqualsIgnoreCase(html_.substr(lt + 2, name.size()), name) &&
          EndsTagName(html_[lt + 2 + name.size()])) {
        pos_ = lt;
        return EndTag(/*tree=*/false);
      }
      at = lt + 1;
    }
  }

  bool IsScriptEndAt(size_t lt) const {
    return lt + 8 < html_.size() && html_[lt + 1] == '/' &&
           EqualsIgnoreCase(html_.substr(lt + 2, 6), "script") && EndsTagName(html_[lt + 8]);
  }

  // After "<" + letters in an escaped state: the letters lowercased and
  // whether they say "script", and where they end.
  bool LettersSayScript(size_t from, size_t* end) const {
    size_t i = from;
    while (i < html_.size() && IsAsciiLetter(html_[i])) ++i;
    *end = i;
    return EqualsIgnoreCase(html_.substr(from, i - from), "script");
  }

  // Script data with its escaped and double-escaped states (HTML 13.2.5.15-
  // 31): finds the "</script" that ends the element.
  bool SkipScript() {
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
            if (IsScriptEndAt(i)) return EndScriptAt(i);
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
            if (IsScriptEndAt(i)) return EndScriptAt(i);
            i += 1;
            continue;
          }
          if (i + 1 < n && IsAsciiLetter(html_[i + 1])) {
            size_t end = 0;
            const bool script = LettersSayScript(i + 1, &end);
            if (end >= n) return EndScriptAt(n);
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
            if (end >= n) return EndScriptAt(n);
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
    return EndScriptAt(n);
  }

  bool EndScriptAt(size_t at) {
    pos_ = at;
    if (at >= html_.size()) return true;  // the rest is script text
    return EndTag(/*tree=*/false);
  }

  void Why(const std::string& what, GumboTag top) {
    why_ = what + gumbo_normalized_tagname(top) + ">";
  }

  // ---- Tree model ----

  bool Text(std::string_view text) {
    if (template_depth_ > 0) return true;
    if (head_phase_) {
      if (AllHtmlSpace(text)) return true;
      // "&#32;" would be a space to Gumbo and keep it in the head.
      if (text.find('&') != std::string_view::npos) {
        why_ = "text with a character reference before <body>";
        return false;
      }
      EnterBody();
      return true;
    }
    const GumboTag top = stack_.back();
    if ((IsTableContext(top) || top == GUMBO_TAG_COLGROUP) && !AllHtmlSpace(text)) {
      Why("text in <", top);
      return false;
    }
    return true;
  }

  void EnterBody() {
    head_phase_ = false;
    head_noscript_ = false;
    Push(GUMBO_TAG_BODY);
  }

  void Push(GumboTag tag) {
    stack_.push_back(tag);
    ++open_[tag];
    if (tag == GUMBO_TAG_TEMPLATE) ++template_depth_;
  }

  void PopOne() {
    const GumboTag tag = stack_.back();
    stack_.pop_back();
    --open_[tag];
    if (tag == GUMBO_TAG_TEMPLATE) --template_depth_;
  }

  // Pops the elements above `index` and the one at it. A formatting element
  // popped from above would stay in the list of active formatting elements
  // and be cloned later: not followed, unless the pop clears the list to the
  // marker the target set (cells, captions, applet/marquee/object).
  bool PopThrough(size_t index, bool clears_to_marker) {
    while (stack_.size() > index + 1) {
      if (!clears_to_marker && IsFormatting(stack_.back())) return false;
      PopOne();
    }
    PopOne();
    return true;
  }

  size_t Find(GumboTag tag, Scope scope) const {
    for (size_t i = stack_.size(); i-- > 0;) {
      if (stack_[i] == tag) return i;
      if (BoundsScope(stack_[i], scope)) return kNone;
    }
    return kNone;
  }

  void GenerateImpliedEndTags(GumboTag except) {
    while (IsImpliedEnd(stack_.back()) && stack_.back() != except) PopOne();
  }

  // Gumbo's implicitly_close_tags: implied end tags, then pop to `index`.
  bool CloseAt(size_t index, bool clears_to_marker = false) {
    GenerateImpliedEndTags(stack_[index]);
    return PopThrough(index, clears_to_marker);
  }

  bool ClosePInButtonScope() {
    const size_t p = Find(GUMBO_TAG_P, Scope::kButton);
    return p == kNone || CloseAt(p);
  }

  Next OnStartTag(const StartTag& t) {
    if (stack_.size() + foreign_.size() > kMaxModelDepth) return Next::kFallBack;
    if (!foreign_.empty()) return ForeignStart(t);
    if (template_depth_ > 0) return TemplateStart(t);
    if (head_phase_) return HeadStart(t);
    const GumboTag top = stack_.back();
    if (top == GUMBO_TAG_COLGROUP) return ColgroupStart(t);
    if (IsTableContext(top)) return TableStart(t);
    const GumboTag anchor = Anchor();
    if ((anchor == GUMBO_TAG_TD || anchor == GUMBO_TAG_TH) && IsTablePartStart(t.tag)) {
      if (!PopThrough(Find(anchor, Scope::kTable), /*clears_to_marker=*/true)) {
        return Next::kFallBack;
      }
      return OnStartTag(t);
    }
    if (anchor == GUMBO_TAG_CAPTION && IsTablePartStart(t.tag)) {
      PopThrough(Find(GUMBO_TAG_CAPTION, Scope::kTable), /*clears_to_marker=*/true);
      return OnStartTag(t);
    }
    return BodyStart(t);
  }

  // The innermost element that sets the insertion mode.
  GumboTag Anchor() const {
    for (size_t i = stack_.size(); i-- > 0;) {
      switch (stack_[i]) {
        case GUMBO_TAG_TD:
        case GUMBO_TAG_TH:
        case GUMBO_TAG_CAPTION:
        case GUMBO_TAG_TABLE:
        case GUMBO_TAG_TEMPLATE:
        case GUMBO_TAG_HTML:
          return stack_[i];
        default:
          break;
      }
    }
    return GUMBO_TAG_HTML;
  }

  // Inside <template>: nothing is collected and only what changes the
  // tokenizer or leaves the template is followed.
  Next TemplateStart(const StartTag& t) {
    switch (t.tag) {
      case GUMBO_TAG_SVG:
        return OpenSvg(t);  // for the tokenizer: no RAWTEXT, CDATA sections
      case GUMBO_TAG_MATH:
      case GUMBO_TAG_SELECT:
      case GUMBO_TAG_FRAMESET:
      case GUMBO_TAG_COL:
      case GUMBO_TAG_COLGROUP:
        return Next::kFallBack;
      case GUMBO_TAG_TEMPLATE:
        Push(GUMBO_TAG_TEMPLATE);
        return Next::kData;
      default:
        return TokenizerSwitch(t.tag);
    }
  }

  static Next TokenizerSwitch(GumboTag tag) {
    switch (tag) {
      case GUMBO_TAG_TITLE:
      case GUMBO_TAG_TEXTAREA:
        return Next::kRcdata;
      case GUMBO_TAG_STYLE:
      case GUMBO_TAG_XMP:
      case GUMBO_TAG_IFRAME:
      case GUMBO_TAG_NOEMBED:
      case GUMBO_TAG_NOFRAMES:
        return Next::kRawtext;
      case GUMBO_TAG_SCRIPT:
        return Next::kScript;
      case GUMBO_TAG_PLAINTEXT:
        return Next::kPlaintext;
      default:
        return Next::kData;
    }
  }

  // Before <body>: the "in head", "in head noscript" and "after head" modes.
  Next HeadStart(const StartTag& t) {
    if (head_noscript_) {
      switch (t.tag) {
        case GUMBO_TAG_BASEFONT:
        case GUMBO_TAG_BGSOUND:
        case GUMBO_TAG_LINK:
        case GUMBO_TAG_META:
        case GUMBO_TAG_NOFRAMES:
        case GUMBO_TAG_STYLE:
        case GUMBO_TAG_HTML:
          break;
        case GUMBO_TAG_HEAD:
        case GUMBO_TAG_NOSCRIPT:
          return Next::kData;
        default:
          head_noscript_ = false;  // the noscript closes; "in head" takes the tag
          break;
      }
    }
    switch (t.tag) {
      case GUMBO_TAG_HTML:
      case GUMBO_TAG_HEAD:
        return Next::kData;
      case GUMBO_TAG_BASE:
      case GUMBO_TAG_BASEFONT:
      case GUMBO_TAG_BGSOUND:
      case GUMBO_TAG_LINK:
      case GUMBO_TAG_META:
      case GUMBO_TAG_MENUITEM:
        Collect(t);
        return Next::kData;
      case GUMBO_TAG_TITLE:
      case GUMBO_TAG_NOFRAMES:
      case GUMBO_TAG_STYLE:
      case GUMBO_TAG_SCRIPT:
        return TokenizerSwitch(t.tag);
      case GUMBO_TAG_TEMPLATE:
        Push(GUMBO_TAG_TEMPLATE);
        return Next::kData;
      case GUMBO_TAG_NOSCRIPT:
        if (head_closed_) break;  // "after head": a body element
        head_noscript_ = true;
        return Next::kData;
      case GUMBO_TAG_BODY:
        EnterBody();
        return Next::kData;
      case GUMBO_TAG_FRAMESET:
        return Next::kFallBack;
      default:
        break;
    }
    EnterBody();
    return BodyStart(t);
  }

  Next ColgroupStart(const StartTag& t) {
    if (t.tag == GUMBO_TAG_COL) return Next::kData;
    if (t.tag == GUMBO_TAG_TEMPLATE) {
      Push(GUMBO_TAG_TEMPLATE);
      return Next::kData;
    }
    if (t.tag == GUMBO_TAG_HTML) return Next::kFallBack;
    PopOne();  // the colgroup closes; "in table" takes the tag
    return OnStartTag(t);
  }

  void PopToTable() {
    while (stack_.back() != GUMBO_TAG_TABLE) PopOne();
  }

  // "in table", "in table body", "in row": what would be foster-parented is
  // not followed.
  Next TableStart(const StartTag& t) {
    const GumboTag top = stack_.back();
    switch (t.tag) {
      case GUMBO_TAG_CAPTION:
      case GUMBO_TAG_COLGROUP:
        PopToTable();
        Push(t.tag);
        return Next::kData;
      case GUMBO_TAG_COL:
        PopToTable();
        Push(GUMBO_TAG_COLGROUP);
        return Next::kData;
      case GUMBO_TAG_TBODY:
      case GUMBO_TAG_THEAD:
      case GUMBO_TAG_TFOOT:
        PopToTable();
        Push(t.tag);
        return Next::kData;
      case GUMBO_TAG_TR:
        if (top == GUMBO_TAG_TABLE) Push(GUMBO_TAG_TBODY);
        if (top == GUMBO_TAG_TR) PopOne();
        Push(GUMBO_TAG_TR);
        return Next::kData;
      case GUMBO_TAG_TD:
      case GUMBO_TAG_TH:
        if (top == GUMBO_TAG_TABLE) Push(GUMBO_TAG_TBODY);
        if (top != GUMBO_TAG_TR) Push(GUMBO_TAG_TR);
        Push(t.tag);
        return Next::kData;
      case GUMBO_TAG_STYLE:
      case GUMBO_TAG_SCRIPT:
        return TokenizerSwitch(t.tag);
      case GUMBO_TAG_TEMPLATE:
        Push(GUMBO_TAG_TEMPLATE);
        return Next::kData;
      default:
        return Next::kFallBack;
    }
  }

  // "in body" (also inside cells and captions, whose scope bounds stop the
  // searches).
  Next BodyStart(const StartTag& t) {
    const GumboTag tag = t.tag;
    switch (tag) {
      case GUMBO_TAG_HTML:
      case GUMBO_TAG_BODY:
      case GUMBO_TAG_HEAD:
      case GUMBO_TAG_CAPTION:
      case GUMBO_TAG_COL:
      case GUMBO_TAG_COLGROUP:
      case GUMBO_TAG_TBODY:
      case GUMBO_TAG_TD:
      case GUMBO_TAG_TFOOT:
      case GUMBO_TAG_TH:
      case GUMBO_TAG_THEAD:
      case GUMBO_TAG_TR:
        return Next::kData;  // ignored (or attributes merged into <html>/<body>)
      case GUMBO_TAG_SVG:
        return OpenSvg(t);
      // <frameset> in body may replace the body (frameset-ok), after which
      // <a> and the rest are ignored; <frame> is rare: both to Gumbo.
      // (crawler_links_diff found <frameset> taken for <svg>.)
      case GUMBO_TAG_FRAME:
      case GUMBO_TAG_FRAMESET:
      case GUMBO_TAG_SELECT:
      case GUMBO_TAG_MATH:
      case GUMBO_TAG_ISINDEX:
      case GUMBO_TAG_NOBR:
      case GUMBO_TAG_RB:
      case GUMBO_TAG_RP:
      case GUMBO_TAG_RT:
      case GUMBO_TAG_RTC:
      case GUMBO_TAG_BUTTON:
        if (tag == GUMBO_TAG_BUTTON && Find(GUMBO_TAG_BUTTON, Scope::kDefault) == kNone) break;
        return Next::kFallBack;
      case GUMBO_TAG_BASE:
      case GUMBO_TAG_BASEFONT:
      case GUMBO_TAG_BGSOUND:
      case GUMBO_TAG_LINK:
      case GUMBO_TAG_META:
      case GUMBO_TAG_MENUITEM:
      case GUMBO_TAG_AREA:
      case GUMBO_TAG_BR:
      case GUMBO_TAG_EMBED:
      case GUMBO_TAG_IMG:
      case GUMBO_TAG_IMAGE:
      case GUMBO_TAG_KEYGEN:
      case GUMBO_TAG_WBR:
      case GUMBO_TAG_INPUT:
      case GUMBO_TAG_PARAM:
      case GUMBO_TAG_SOURCE:
      case GUMBO_TAG_TRACK:
        Collect(t);
        return Next::kData;  // void
      case GUMBO_TAG_HR:
        return ClosePInButtonScope() ? Next::kData : Next::kFallBack;
      case GUMBO_TAG_TITLE:
      case GUMBO_TAG_NOFRAMES:
      case GUMBO_TAG_STYLE:
      case GUMBO_TAG_SCRIPT:
      case GUMBO_TAG_TEXTAREA:
      case GUMBO_TAG_NOEMBED:
        return TokenizerSwitch(tag);
      case GUMBO_TAG_IFRAME:
        Collect(t);
        return Next::kRawtext;
      case GUMBO_TAG_XMP:
        return ClosePInButtonScope() ? Next::kRawtext : Next::kFallBack;
      case GUMBO_TAG_PLAINTEXT:
        return ClosePInButtonScope() ? Next::kPlaintext : Next::kFallBack;
      case GUMBO_TAG_TEMPLATE:
        Push(tag);
        return Next::kData;
      case GUMBO_TAG_FORM:
        if (form_pointer_ || !ClosePInButtonScope()) return Next::kFallBack;
        form_pointer_ = true;
        Push(tag);
        return Next::kData;
      case GUMBO_TAG_LI:
      case GUMBO_TAG_DD:
      case GUMBO_TAG_DT:
        if (!CloseListItem(tag) || !ClosePInButtonScope()) return Next::kFallBack;
        Push(tag);
        return Next::kData;
      case GUMBO_TAG_A:
        if (open_[GUMBO_TAG_A] > 0) return Next::kFallBack;  // the adoption agency
        Collect(t);
        Push(tag);
        return Next::kData;
      case GUMBO_TAG_TABLE:
        // Whether an open <p> closes depends on quirks mode.
        if (Find(GUMBO_TAG_P, Scope::kButton) != kNone) return Next::kFallBack;
        Push(tag);
        return Next::kData;
      case GUMBO_TAG_OPTION:
      case GUMBO_TAG_OPTGROUP:
        if (stack_.back() == GUMBO_TAG_OPTION) PopOne();
        Push(tag);
        return Next::kData;
      default:
        break;
    }
    if (IsFormatting(tag)) {
      if (open_[tag] >= 2) return Next::kFallBack;  // the Noah's Ark clause
      Push(tag);
      return Next::kData;
    }
    if (IsBlockStart(tag) || tag == GUMBO_TAG_PRE || tag == GUMBO_TAG_LISTING) {
      if (!ClosePInButtonScope()) return Next::kFallBack;
      Push(tag);
      return Next::kData;
    }
    if (IsHeading(tag)) {
      if (!ClosePInButtonScope()) return Next::kFallBack;
      if (IsHeading(stack_.back())) PopOne();
      Push(tag);
      return Next::kData;
    }
    Push(tag);
    return Next::kData;
  }

  // <svg> in body: a foreign element. Its subtree is kept in foreign_ (raw
  // lowercased names, as Gumbo matches foreign end tags by name) under one
  // GUMBO_TAG_SVG entry in stack_, which no HTML rule ever matches.
  Next OpenSvg(const StartTag& t) {
    if (t.self_closing) return Next::kData;
    Push(GUMBO_TAG_SVG);
    foreign_.emplace_back("svg");
    return Next::kData;
  }

  static bool IsIntegrationPoint(std::string_view name) {
    return name == "foreignobject" || name == "desc" || name == "title";
  }

  // "in foreign content", SVG only: elements nest by name; a start tag
  // that breaks out into HTML, any HTML inside an integration point
  // (foreignObject, desc, title) and MathML are not followed.
  Next ForeignStart(const StartTag& t) {
    if (IsIntegrationPoint(foreign_.back())) return Next::kFallBack;
    switch (t.tag) {
      case GUMBO_TAG_UNKNOWN:
      case GUMBO_TAG_SVG:
      case GUMBO_TAG_TITLE:
      case GUMBO_TAG_DESC:
      case GUMBO_TAG_STYLE:
      case GUMBO_TAG_SCRIPT:
      case GUMBO_TAG_IMAGE:
        break;
      case GUMBO_TAG_A:
        Collect(t);
        break;
      default:
        return Next::kFallBack;  // a breakout tag, or one not checked against the list
    }
    // Gumbo matches foreign end tags against the start tag's raw text cut
    // at C isspace() or '/': keep to names where that is the name.
    for (const char c : t.name) {
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == ':' ||
            c == '.')) {
        return Next::kFallBack;
      }
    }
    if (!t.self_closing) foreign_.emplace_back(t.name);
    return Next::kData;  // the tokenizer stays in data: no RAWTEXT in SVG
  }

  // "Any other end tag" in foreign content: close the nearest foreign
  // element of that name; one that reaches HTML is not followed.
  bool ForeignEnd() {
    // Gumbo compares all of "</...>" between "</" and ">": "</g >" is no "g".
    if (!end_tag_bare_) return false;
    for (size_t i = foreign_.size(); i-- > 0;) {
      if (foreign_[i] == name_) {
        foreign_.resize(i);
        if (foreign_.empty()) PopOne();  // the <svg> itself closed
        return true;
      }
    }
    return false;
  }

  // <li>, <dd>, <dt> close an open one unless a special element other than
  // address, div, p is between.
  bool CloseListItem(GumboTag tag) {
    for (size_t i = stack_.size(); i-- > 0;) {
      const GumboTag node = stack_[i];
      const bool match = tag == GUMBO_TAG_LI ? node == GUMBO_TAG_LI
                                             : (node == GUMBO_TAG_DD || node == GUMBO_TAG_DT);
      if (match) return CloseAt(i);
      if (IsSpecial(node) && node != GUMBO_TAG_ADDRESS && node != GUMBO_TAG_DIV &&
          node != GUMBO_TAG_P) {
        return true;
      }
    }
    return true;
  }

  bool OnEndTag(GumboTag tag) {
    if (!foreign_.empty()) return ForeignEnd();
    if (template_depth_ > 0) return tag == GUMBO_TAG_TEMPLATE ? CloseTemplate() : true;
    if (head_phase_) return HeadEnd(tag);
    const GumboTag top = stack_.back();
    if (top == GUMBO_TAG_COLGROUP) {
      if (tag == GUMBO_TAG_COL || tag == GUMBO_TAG_TEMPLATE) return true;
      PopOne();
      return tag == GUMBO_TAG_COLGROUP || OnEndTag(tag);
    }
    if (IsTableContext(top)) return TableEnd(tag);
    const GumboTag anchor = Anchor();
    if (anchor == GUMBO_TAG_TD || anchor == GUMBO_TAG_TH) {
      switch (tag) {
        case GUMBO_TAG_TD:
        case GUMBO_TAG_TH: {
          const size_t cell = Find(tag, Scope::kTable);
          return cell == kNone || CloseAt(cell, /*clears_to_marker=*/true);
        }
        case GUMBO_TAG_BODY:
        case GUMBO_TAG_CAPTION:
        case GUMBO_TAG_COL:
        case GUMBO_TAG_COLGROUP:
        case GUMBO_TAG_HTML:
          return true;
        case GUMBO_TAG_TABLE:
        case GUMBO_TAG_TBODY:
        case GUMBO_TAG_TFOOT:
        case GUMBO_TAG_THEAD:
        case GUMBO_TAG_TR:
          if (Find(tag, Scope::kTable) == kNone) return true;
          if (!CloseAt(Find(anchor, Scope::kTable), /*clears_to_marker=*/true)) return false;
          return OnEndTag(tag);
        default:
          return BodyEnd(tag);
      }
    }
    if (anchor == GUMBO_TAG_CAPTION) {
      switch (tag) {
        case GUMBO_TAG_CAPTION:
        case GUMBO_TAG_TABLE:
          if (!CloseAt(Find(GUMBO_TAG_CAPTION, Scope::kTable), /*clears_to_marker=*/true)) {
            return false;
          }
          return tag == GUMBO_TAG_CAPTION || OnEndTag(tag);
        case GUMBO_TAG_BODY:
        case GUMBO_TAG_COL:
        case GUMBO_TAG_COLGROUP:
        case GUMBO_TAG_HTML:
        case GUMBO_TAG_TBODY:
        case GUMBO_TAG_TD:
        case GUMBO_TAG_TFOOT:
        case GUMBO_TAG_TH:
        case GUMBO_TAG_THEAD:
        case GUMBO_TAG_TR:
          return true;
        default:
          return BodyEnd(tag);
      }
    }
    return BodyEnd(tag);
  }

  bool CloseTemplate() {
    for (size_t i = stack_.size(); i-- > 0;) {
      if (stack_[i] == GUMBO_TAG_TEMPLATE) return PopThrough(i, /*clears_to_marker=*/true);
    }
    return true;
  }

  bool HeadEnd(GumboTag tag) {
    if (head_noscript_) {
      if (tag == GUMBO_TAG_NOSCRIPT) {
        head_noscript_ = false;
        return true;
      }
      if (tag != GUMBO_TAG_BR) return true;  // ignored
      head_noscript_ = false;
    }
    switch (tag) {
      case GUMBO_TAG_HEAD:
        head_closed_ = true;
        return true;
      case GUMBO_TAG_BODY:
      case GUMBO_TAG_HTML:
      case GUMBO_TAG_BR:
        EnterBody();
        return true;  // then "after body", or a <br>: nothing for links
      default:
        return true;
    }
  }

  bool TableEnd(GumboTag tag) {
    switch (tag) {
      case GUMBO_TAG_TABLE:
        PopToTable();
        PopOne();
        return true;
      case GUMBO_TAG_TBODY:
      case GUMBO_TAG_THEAD:
      case GUMBO_TAG_TFOOT:
      case GUMBO_TAG_TR:
        for (size_t i = stack_.size(); i-- > 0 && stack_[i] != GUMBO_TAG_TABLE;) {
          if (stack_[i] == tag) return PopThrough(i, false);
        }
        return true;
      case GUMBO_TAG_BODY:
      case GUMBO_TAG_CAPTION:
      case GUMBO_TAG_COL:
      case GUMBO_TAG_COLGROUP:
      case GUMBO_TAG_HTML:
      case GUMBO_TAG_TD:
      case GUMBO_TAG_TH:
      case GUMBO_TAG_TEMPLATE:
        return true;
      default:
        return false;
    }
  }

  bool BodyEnd(GumboTag tag) {
    switch (tag) {
      case GUMBO_TAG_BODY:
      case GUMBO_TAG_HTML:
      case GUMBO_TAG_BR:
      case GUMBO_TAG_TEMPLATE:
        return true;
      case GUMBO_TAG_FORM:
        if (!form_pointer_) return true;
        if (stack_.back() != GUMBO_TAG_FORM) return false;
        form_pointer_ = false;
        PopOne();
        return true;
      case GUMBO_TAG_P: {
        const size_t p = Find(GUMBO_TAG_P, Scope::kButton);
        return p == kNone || CloseAt(p);
      }
      case GUMBO_TAG_LI: {
        const size_t li = Find(GUMBO_TAG_LI, Scope::kListItem);
        return li == kNone || CloseAt(li);
      }
      case GUMBO_TAG_DD:
      case GUMBO_TAG_DT: {
        const size_t item = Find(tag, Scope::kDefault);
        return item == kNone || CloseAt(item);
      }
      case GUMBO_TAG_APPLET:
      case GUMBO_TAG_MARQUEE:
      case GUMBO_TAG_OBJECT: {
        const size_t at = Find(tag, Scope::kDefault);
        return at == kNone || CloseAt(at, /*clears_to_marker=*/true);
      }
      default:
        break;
    }
    if (IsBlockEnd(tag)) {
      const size_t at = Find(tag, Scope::kDefault);
      return at == kNone || CloseAt(at);
    }
    if (IsHeading(tag)) {
      for (size_t i = stack_.size(); i-- > 0;) {
        if (IsHeading(stack_[i])) {
          GenerateImpliedEndTags(GUMBO_TAG_LAST);
          return PopThrough(i, false);
        }
        if (BoundsScope(stack_[i], Scope::kDefault)) return true;
      }
      return true;
    }
    if (IsFormatting(tag)) {
      if (stack_.back() == tag) {
        PopOne();
        return true;
      }
      return open_[tag] == 0;  // elsewhere on the stack: the adoption agency
    }
    // Any other end tag: the nearest element of that tag unless a special
    // one comes first.
    for (size_t i = stack_.size(); i-- > 0;) {
      if (stack_[i] == tag) {
        GenerateImpliedEndTags(tag);
        return PopThrough(i, false);
      }
      if (IsSpecial(stack_[i])) return true;
    }
    return true;
  }

  // ---- Links, as FindRawLinks reads them off the tree ----

  void Collect(const StartTag& t) {
    if (template_depth_ > 0) return;
    links_.Visit(t.tag, Namespace(), [&t](LinkAttr a) { return t.attrs[a]; });
  }

  static constexpr size_t kNone = static_cast<size_t>(-1);

  const std::string_view html_;
  std::deque<std::string>& storage_;
  size_t pos_ = 0;
  std::string_view name_;     // the tag name being read, lowercased
  std::string lowered_name_;  // name_'s bytes when the page's are not lowercase
  bool name_alnum_ = false;   // name_ is only lowercase letters and digits

  std::vector<GumboTag> stack_;
  std::vector<std::string> foreign_;            // the open SVG elements, innermost last
  bool self_closing_ = false;                   // the tag just read ended in "/>"
  bool end_tag_bare_ = false;                   // the end tag just read is "</" name ">"
  std::vector<std::string_view> names_;         // attribute names of the tag being read
                                                // the open elements, <html> first
  std::array<int, GUMBO_TAG_LAST + 1> open_{};  // how many of each tag are on stack_
  int template_depth_ = 0;
  bool head_phase_ = true;      // before <body> (explicit or implied)
  bool head_noscript_ = false;  // inside a <noscript> of the head
  bool head_closed_ = false;    // after </head>
  bool form_pointer_ = false;   // Gumbo's form element pointer is set
  LinkCollector links_;
  std::string why_;  // what made the scan give up
};

}  // namespace

std::optional<RawPage> ScanRawLinks(std::string_view html, size_t max_links,
                                    std::deque<std::string>& storage, std::string* why) {
  Scanner scanner(html, max_links, storage);
  if (!scanner.Run()) {
    if (why != nullptr) *why = scanner.why();
    return std::nullopt;
  }
  return scanner.Take();
}

}  // namespace crawler::links_internal
