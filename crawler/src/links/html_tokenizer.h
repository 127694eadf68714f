// HtmlTokenizer: Gumbo 0.10.1's tokenizer (tokenizer.c), as far as links
// need it: the data, tag open, end tag open, tag name and attribute states,
// self-closing, markup declaration, comments, DOCTYPE and bogus comments,
// RCDATA and RAWTEXT, script data with its escaped and double-escaped
// states, PLAINTEXT, and CDATA sections in foreign content. It emits start
// tags, end tags and text to a TokenSink (html_token.h) and switches state
// as the sink answers. It builds nothing: a tag's name and link attributes
// are views of the page, or of `storage` where decoding changed the bytes.
//
// The sink is a template parameter, not a virtual base: the calls are
// direct, so the scan costs what one class did (links-scan-bench).
//
// Example:
//   TreeModel tree(links);
//   HtmlTokenizer<TreeModel> tokenizer(html, storage, tree);
//   if (!tokenizer.Run()) ... tokenizer.why(), or the sink's own reason
//
// Threading: one tokenizer per page, used from one thread.
#ifndef CRAWLER_SRC_LINKS_HTML_TOKENIZER_H_
#define CRAWLER_SRC_LINKS_HTML_TOKENIZER_H_

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "links/ascii.h"
#include "links/html_token.h"
#include "links/tag_lookup.h"

namespace crawler::links_internal {

inline bool EndsTagName(char c) { return IsHtmlSpace(c) || c == '/' || c == '>'; }

// The states that do not depend on the sink: reading names and attributes,
// and finding where comments, raw text and script data end.
class TokenizerCore {
 public:
  // What made the tokenizer give up (empty when it did not).
  const std::string& why() const { return why_; }

 protected:
  // `storage`: where decoded attribute values are kept; null for a reader
  // that never passes ReadAttributes a StartTag.
  TokenizerCore(std::string_view html, std::deque<std::string>* storage)
      : html_(html), storage_(storage) {}

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
    return ReadOtherTagName(start);
  }

  GumboTag NameTag() const { return name_alnum_ ? TagOfAlnum(name_) : TagOf(name_); }

  // The attribute states from just after the tag name. Returns one past the
  // '>' that ends the tag, or npos when the input ends first (the tag is
  // dropped). Fills out->attrs when `out` is not null (`svg`: the element is
  // an SVG one); *ok = false when a value cannot be decoded with certainty.
  size_t ReadAttributes(size_t i, StartTag* out, bool svg, bool* ok);

  // Where a comment whose body starts at `body` ends (one past it), or npos
  // when nothing ends it (it runs to the end of the page).
  size_t CommentEnd(size_t body) const;

  // RCDATA and RAWTEXT from pos_: the '<' of the end tag named `name`, or
  // npos when there is none (the rest is text).
  size_t RawTextEnd(std::string_view name) const;

  // Script data from pos_, with its escaped and double-escaped states (HTML
  // 13.2.5.15-31): the '<' of the "</script" that ends the element, or
  // html_.size().
  size_t ScriptEnd() const;

  const std::string_view html_;
  size_t pos_ = 0;
  std::string_view name_;      // the tag name just read, lowercased
  bool self_closing_ = false;  // the tag just read ended in "/>"
  std::string why_;

 private:
  size_t ReadOtherTagName(size_t start);
  bool SeenBefore(std::string_view name, bool* ok);
  std::optional<std::string_view> DecodeValue(size_t begin, size_t end, char allowed);
  bool AppendUtf8Char(size_t end, size_t* i, std::string* out) const;
  bool IsScriptEndAt(size_t lt) const;
  bool LettersSayScript(size_t from, size_t* end) const;

  std::deque<std::string>* storage_;
  std::string lowered_name_;             // name_'s bytes when the page's are not lowercase
  bool name_alnum_ = false;              // name_ is only lowercase letters and digits
  std::vector<std::string_view> names_;  // attribute names of the tag being read
};

template <TokenSink Sink>
class HtmlTokenizer : public TokenizerCore {
 public:
  // `html` and `storage` must outlive the tokens the sink keeps.
  HtmlTokenizer(std::string_view html, std::deque<std::string>& storage, Sink& sink)
      : TokenizerCore(html, &storage), sink_(sink) {}

  // Tokenizes the whole page; false when the tokenizer (why()) or the sink
  // gave up.
  bool Run() {
    while (pos_ < html_.size()) {
      const void* lt = std::memchr(html_.data() + pos_, '<', html_.size() - pos_);
      const size_t at = lt == nullptr ? html_.size() : static_cast<const char*>(lt) - html_.data();
      if (at > pos_ && !sink_.OnText(html_.substr(pos_, at - pos_))) return false;
      pos_ = at;
      if (pos_ >= html_.size()) break;
      if (!Markup()) return false;
    }
    return true;
  }

 private:
  // At a '<' in the data state.
  bool Markup() {
    const size_t next = pos_ + 1;
    if (next >= html_.size()) return TextTo(next);
    const char c = html_[next];
    if (c == '!') return MarkupDeclaration();
    if (c == '?') return SkipBogusComment(next);
    if (c == '/') {
      if (next + 1 >= html_.size()) return TextTo(html_.size());  // "</" at EOF is text
      const char d = html_[next + 1];
      if (IsAsciiLetter(d)) return ReadEndTag(/*tree=*/true);
      if (d == '>') {
        pos_ = next + 2;  // "</>" is dropped
        return true;
      }
      return SkipBogusComment(next + 1);
    }
    if (IsAsciiLetter(c)) return ReadStartTag();
    return TextTo(next);  // a '<' that opens nothing is text
  }

  // The text from pos_ to `end`, then go on there.
  bool TextTo(size_t end) {
    const bool ok = sink_.OnText(html_.substr(pos_, end - pos_));
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
    if (rest.substr(0, 2) == "--") {
      pos_ = std::min(CommentEnd(pos_ + 4), html_.size());
      return true;
    }
    // CDATA only in foreign content; elsewhere "<![CDATA[" is a bogus
    // comment. DOCTYPE: any '>' ends it.
    if (rest.substr(0, 7) == "[CDATA[" && sink_.InForeignContent()) {
      const size_t end = html_.find("]]>", pos_ + 9);
      pos_ = end == std::string_view::npos ? html_.size() : end + 3;
      return true;
    }
    return SkipBogusComment(pos_ + 2);
  }

  bool ReadStartTag() {
    size_t i = ReadTagName(pos_ + 1);
    StartTag tag;
    tag.tag = NameTag();
    const GumboNamespaceEnum ns =
        sink_.InForeignContent() ? GUMBO_NAMESPACE_SVG : GUMBO_NAMESPACE_HTML;
    const bool wants_values = LinkCollector::ReadsAttributes(tag.tag, ns);
    bool ok = true;
    i = ReadAttributes(i, wants_values ? &tag : nullptr, ns == GUMBO_NAMESPACE_SVG, &ok);
    if (!ok) return false;
    if (i == std::string_view::npos) {  // EOF inside the tag: it is dropped
      pos_ = html_.size();
      return true;
    }
    pos_ = i;
    // A copy: name_ may be overwritten by the raw text's end tag.
    const std::string element_name(name_);
    tag.name = element_name;
    tag.self_closing = self_closing_;
    switch (sink_.OnStartTag(tag)) {
      case Next::kData:
        return true;
      case Next::kRcdata:
      case Next::kRawtext:
        return SkipRawText(element_name);
      case Next::kScript:
        return EndRawTextAt(ScriptEnd());
      case Next::kPlaintext:
        pos_ = html_.size();
        return true;
      case Next::kFallBack:
        return false;
    }
    return false;
  }

  // An end tag at pos_ ("</" + letter). `tree`: whether the sink sees it
  // (not the end tag that closes raw text).
  bool ReadEndTag(bool tree) {
    size_t i = ReadTagName(pos_ + 2);
    EndTag tag;
    tag.tag = NameTag();
    tag.name = name_;
    tag.bare = i < html_.size() && html_[i] == '>';
    bool ok = true;
    i = ReadAttributes(i, nullptr, false, &ok);
    if (!ok) return false;
    if (i == std::string_view::npos) {
      pos_ = html_.size();
      return true;
    }
    pos_ = i;
    return !tree || sink_.OnEndTag(tag);
  }

  // RCDATA and RAWTEXT: to the end tag named like the element, then that
  // end tag (with its attributes) as the tokenizer reads it.
  bool SkipRawText(std::string_view name) { return EndRawTextAt(RawTextEnd(name)); }

  // The raw text runs to `at` (npos or the end: to the end of the page),
  // where its end tag starts.
  bool EndRawTextAt(size_t at) {
    if (at >= html_.size()) {
      pos_ = html_.size();  // the rest is text
      return true;
    }
    pos_ = at;
    return ReadEndTag(/*tree=*/false);
  }

  Sink& sink_;
};

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_HTML_TOKENIZER_H_
