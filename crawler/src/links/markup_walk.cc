// WalkMarkup: the scan behind SafeChunkEnds and CollapseText. One class that
// keeps the position and the open context-sensitive elements; each Markup()
// consumes one item or a '<' that is text, and says when it cannot go on.
// Tag names, the attribute states, comment ends and raw-text ends are the
// scanner's tokenizer's own (TokenizerCore, html_tokenizer.h), so the two
// cannot read a tag's extent differently; what is the walker's own is where
// it stops rather than guess.
#include "links/markup_walk.h"

#include <array>
#include <string>

#include "links/ascii.h"
#include "links/html_tokenizer.h"

namespace crawler::links_internal {
namespace {

// Not noscript: Gumbo parses with scripting off, so its content is markup
// (the fuzzer found `<noscript><a href="</noscript>...">`, one tag to Gumbo).
constexpr std::array<std::string_view, 8> kRawTextElements = {
    "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"};
// Elements whose content parses differently outside them: a piece starting
// inside one would be parsed in the wrong context. noscript is one: a parser
// with scripting on would read its content as raw text.
constexpr std::array<std::string_view, 6> kContextElements = {"template", "svg",      "math",
                                                              "select",   "frameset", "noscript"};

// Position of the first case-insensitive occurrence of `needle` (which
// starts with '<') at or after `from`, or npos.
size_t FindIgnoreCase(std::string_view text, std::string_view needle, size_t from) {
  while (from + needle.size() <= text.size()) {
    const size_t at = text.find('<', from);
    if (at == std::string_view::npos || at + needle.size() > text.size()) break;
    if (EqualsIgnoreCase(text.substr(at, needle.size()), needle)) return at;
    from = at + 1;
  }
  return std::string_view::npos;
}

class Walker : private TokenizerCore {
 public:
  Walker(std::string_view html, absl::FunctionRef<void(const MarkupItem&)> on_markup)
      : TokenizerCore(html, /*storage=*/nullptr), on_markup_(on_markup) {}

  size_t Run() {
    while (pos_ < html_.size()) {
      const size_t lt = html_.find('<', pos_);
      if (lt == std::string_view::npos) break;
      pos_ = lt;
      MarkupItem item;
      item.begin = lt;
      const bool outside_context = context_depth_ == 0;
      Kind kind = Kind::kText;
      if (!Markup(&kind)) return lt;  // from here on, nothing is known
      if (kind == Kind::kText) continue;
      item.end = pos_;
      item.safe_cut = outside_context && kind == Kind::kTag;
      on_markup_(item);
    }
    return html_.size();
  }

 private:
  enum class Kind { kText, kTag, kOther };

  // Consumes the markup at pos_ ('<'), or the '<' alone when it is text;
  // false when the markup cannot be followed.
  bool Markup(Kind* kind) {
    const std::string_view rest = html_.substr(pos_);
    *kind = Kind::kOther;
    if (rest.substr(0, 4) == "<!--") return Comment();
    if (rest.size() > 1 && (rest[1] == '!' || rest[1] == '?')) {
      if (foreign_depth_ > 0 && rest.substr(0, 9) == "<![CDATA[") return SkipPast("]]>");
      return SkipPast(">");  // doctype or bogus comment
    }
    if (rest.size() > 2 && rest[1] == '/' && !IsAsciiLetter(rest[2])) {
      // "</>" is dropped; "</" before anything else but a letter opens a
      // bogus comment that runs to the next '>'.
      return rest[2] == '>' ? Advance(pos_ + 3) : SkipPast(">");
    }
    *kind = Kind::kTag;
    if (rest.size() > 2 && rest[1] == '/' && IsAsciiLetter(rest[2])) return Tag(/*end=*/true);
    if (rest.size() > 1 && IsAsciiLetter(rest[1])) return Tag(/*end=*/false);
    *kind = Kind::kText;
    ++pos_;  // a '<' that is text
    return true;
  }

  // A comment that nothing ends runs to the end: stop.
  bool Comment() {
    const size_t end = CommentEnd(pos_ + 4);
    return end != std::string_view::npos && Advance(end);
  }

  bool SkipPast(std::string_view terminator) {
    const size_t at = html_.find(terminator, pos_);
    if (at == std::string_view::npos) return false;
    return Advance(at + terminator.size());
  }

  bool Advance(size_t to) {
    pos_ = to;
    return true;
  }

  // A start or end tag: its name, then its attributes as the tokenizer reads
  // them (HTML 13.2.5.32-42), up to the '>' that ends the tag.
  bool Tag(bool end) {
    bool ok = true;
    const size_t after = ReadAttributes(ReadTagName(pos_ + (end ? 2 : 1)), nullptr, false, &ok);
    if (after == std::string_view::npos) return false;  // the tag runs to the end
    pos_ = after;
    const std::string_view name = name_;
    if (end) {
      CloseContext(name);
      return true;
    }
    if (name == "plaintext") return false;
    for (std::string_view raw : kRawTextElements) {
      if (name == raw) return RawText(raw);
    }
    OpenContext(name, self_closing_);
    return true;
  }

  void OpenContext(std::string_view name, bool self_closing) {
    for (std::string_view context : kContextElements) {
      if (name != context) continue;
      const bool foreign = name == "svg" || name == "math";
      if (foreign && self_closing) return;
      ++context_depth_;
      if (foreign) ++foreign_depth_;
    }
  }

  void CloseContext(std::string_view name) {
    for (std::string_view context : kContextElements) {
      if (name != context || context_depth_ == 0) continue;
      --context_depth_;
      if ((name == "svg" || name == "math") && foreign_depth_ > 0) --foreign_depth_;
    }
  }

  // Skips to the end tag of a raw-text element. A script holding "<!--"
  // followed by "<script" may be "double escaped", where its "</script>"
  // does not end it: rather than follow those states, stop.
  bool RawText(std::string_view name) {
    const size_t at = RawTextEnd(name);
    if (at == std::string_view::npos) return false;
    if (name == "script") {
      const std::string_view content = html_.substr(pos_, at - pos_);
      const size_t escape = content.find("<!--");
      if (escape != std::string_view::npos &&
          FindIgnoreCase(content, "<script", escape) != std::string_view::npos) {
        return false;
      }
    }
    pos_ = at;
    return Tag(/*end=*/true);
  }

  const absl::FunctionRef<void(const MarkupItem&)> on_markup_;
  int context_depth_ = 0;
  int foreign_depth_ = 0;
};

}  // namespace

size_t WalkMarkup(std::string_view html, absl::FunctionRef<void(const MarkupItem&)> on_markup) {
  return Walker(html, on_markup).Run();
}

}  // namespace crawler::links_internal
