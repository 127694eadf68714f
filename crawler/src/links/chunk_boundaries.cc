// SafeChunkEnds: a forward scan that follows the HTML tokenizer just far
// enough to know when it is in the data state outside context-sensitive
// elements. When unsure, it does not cut.
#include "links/chunk_boundaries.h"

#include <array>
#include <string>

#include "links/ascii.h"

namespace crawler::links_internal {
namespace {

constexpr std::array<std::string_view, 9> kRawTextElements = {
    "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript"};
// Elements whose content parses differently outside them: a piece starting
// inside one would be parsed in the wrong context.
constexpr std::array<std::string_view, 5> kContextElements = {"template", "svg", "math", "select",
                                                              "frameset"};

bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsTagNameEnd(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == '/' || c == '>';
}

// Position after the first case-insensitive occurrence of `needle` at or
// after `from`, or npos.
size_t FindIgnoreCase(std::string_view text, std::string_view needle, size_t from) {
  while (from + needle.size() <= text.size()) {
    const size_t at = text.find('<', from);
    if (at == std::string_view::npos || at + needle.size() > text.size()) break;
    if (EqualsIgnoreCase(text.substr(at, needle.size()), needle)) return at;
    from = at + 1;
  }
  return std::string_view::npos;
}

class Scanner {
 public:
  Scanner(std::string_view html, size_t target) : html_(html), target_(target) {}

  std::vector<size_t> Run() {
    size_t piece_start = 0;
    while (pos_ < html_.size()) {
      const size_t lt = html_.find('<', pos_);
      if (lt == std::string_view::npos) break;
      pos_ = lt;
      if (lt - piece_start >= target_ && CanCutHere()) {
        ends_.push_back(lt);
        piece_start = lt;
      }
      if (!Markup()) break;  // from here on, no cut is safe
    }
    ends_.push_back(html_.size());
    return std::move(ends_);
  }

 private:
  bool CanCutHere() const {
    if (context_depth_ > 0 || pos_ + 1 >= html_.size()) return false;
    const char next = html_[pos_ + 1];
    return IsAsciiAlpha(next) || next == '/';
  }

  // Consumes the markup at pos_ ('<'); false when the rest cannot be cut.
  bool Markup() {
    const std::string_view rest = html_.substr(pos_);
    if (rest.substr(0, 4) == "<!--") return Comment();
    if (rest.size() > 1 && (rest[1] == '!' || rest[1] == '?')) {
      if (foreign_depth_ > 0 && rest.substr(0, 9) == "<![CDATA[") return SkipPast("]]>");
      return SkipPast(">");  // doctype or bogus comment
    }
    if (rest.size() > 2 && rest[1] == '/' && IsAsciiAlpha(rest[2])) return Tag(/*end=*/true);
    if (rest.size() > 1 && IsAsciiAlpha(rest[1])) return Tag(/*end=*/false);
    ++pos_;  // a '<' that is text
    return true;
  }

  // "<!-->" and "<!--->" are whole comments; others end at "-->" or "--!>".
  bool Comment() {
    const size_t body = pos_ + 4;
    if (html_.substr(body, 1) == ">") return Advance(body + 1);
    if (html_.substr(body, 2) == "->") return Advance(body + 2);
    const size_t dash = html_.find("-->", body);
    const size_t bang = html_.find("--!>", body);
    if (dash == std::string_view::npos && bang == std::string_view::npos) return false;
    return Advance(dash <= bang ? dash + 3 : bang + 4);
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

  // A start or end tag: its name, then attributes up to the '>' that is not
  // inside a quoted value.
  bool Tag(bool end) {
    size_t i = pos_ + (end ? 2 : 1);
    const size_t name_start = i;
    while (i < html_.size() && !IsTagNameEnd(html_[i])) ++i;
    std::string name(html_.substr(name_start, i - name_start));
    for (char& c : name) c = AsciiLower(c);
    bool self_closing = false;
    char quote = 0;
    char last_outside_quotes = 0;  // the last non-space character, to spot "=" before a value
    for (; i < html_.size(); ++i) {
      const char c = html_[i];
      if (quote != 0) {
        if (c == quote) quote = 0;
      } else if ((c == '"' || c == '\'') && last_outside_quotes == '=') {
        quote = c;
      } else if (c == '>') {
        self_closing = html_[i - 1] == '/';
        break;
      }
      if (quote == 0 && !IsHtmlSpace(c)) last_outside_quotes = c;
    }
    if (i >= html_.size()) return false;  // the tag runs to the end
    pos_ = i + 1;
    if (end) {
      CloseContext(name);
      return true;
    }
    if (name == "plaintext") return false;
    for (std::string_view raw : kRawTextElements) {
      if (name == raw) return RawText(raw);
    }
    OpenContext(name, self_closing);
    return true;
  }

  void OpenContext(const std::string& name, bool self_closing) {
    for (std::string_view context : kContextElements) {
      if (name != context) continue;
      const bool foreign = name == "svg" || name == "math";
      if (foreign && self_closing) return;
      ++context_depth_;
      if (foreign) ++foreign_depth_;
    }
  }

  void CloseContext(const std::string& name) {
    for (std::string_view context : kContextElements) {
      if (name != context || context_depth_ == 0) continue;
      --context_depth_;
      if ((name == "svg" || name == "math") && foreign_depth_ > 0) --foreign_depth_;
    }
  }

  // Skips to the end tag of a raw-text element. A script holding "<!--"
  // followed by "<script" may be "double escaped", where its "</script>"
  // does not end it: rather than follow those states, stop cutting.
  bool RawText(std::string_view name) {
    const std::string close = "</" + std::string(name);
    size_t at = pos_;
    for (;;) {
      at = FindIgnoreCase(html_, close, at);
      if (at == std::string_view::npos) return false;
      const size_t after = at + close.size();
      if (after >= html_.size()) return false;
      if (IsTagNameEnd(html_[after])) break;
      at = after;
    }
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

  const std::string_view html_;
  const size_t target_;
  size_t pos_ = 0;
  int context_depth_ = 0;
  int foreign_depth_ = 0;
  std::vector<size_t> ends_;
};

}  // namespace

std::vector<size_t> SafeChunkEnds(std::string_view html, size_t target_bytes) {
  return Scanner(html, target_bytes == 0 ? 1 : target_bytes).Run();
}

}  // namespace crawler::links_internal
