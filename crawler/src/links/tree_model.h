// TreeModel: a model of Gumbo 0.10.1's tree builder (parser.c), as far as
// links need it, and the TokenSink (html_token.h) ScanRawLinks feeds: the
// stack of open elements (Gumbo's tag enum), scopes, implied end tags, the
// head (and <noscript> in it), <template> contents, tables (table, section,
// row, cell, caption and column-group modes) and SVG. It builds no tree;
// the start tags the tree would hold as link elements, in tree order, go to
// a LinkCollector. Whenever the page holds a construct where the tree could
// reorder, clone, drop or re-read link elements and the model does not
// follow it, a call returns false (or Next::kFallBack) and why() says what:
// the caller then parses with Gumbo.
//
// Example:
//   LinkCollector links(1000);
//   TreeModel tree(links);
//   HtmlTokenizer<TreeModel> tokenizer(html, storage, tree);
//
// Threading: one model per page, used from one thread. Bounded by the page:
// one stack entry per open element, at most 1024 of them (kMaxModelDepth,
// tree_model_start.cc; deeper pages go to Gumbo).
#ifndef CRAWLER_SRC_LINKS_TREE_MODEL_H_
#define CRAWLER_SRC_LINKS_TREE_MODEL_H_

#include <gumbo.h>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "links/html_token.h"
#include "links/link_collector.h"
#include "links/tag_sets.h"

namespace crawler::links_internal {

class TreeModel final {
 public:
  explicit TreeModel(LinkCollector& links);

  // The TokenSink calls.
  bool OnText(std::string_view text);
  Next OnStartTag(const StartTag& t);
  bool OnEndTag(const EndTag& t);
  bool InForeignContent() const { return !foreign_.empty(); }

  // What made the model give up (empty when it did not).
  const std::string& why() const { return why_; }

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  // Start tags by insertion mode.
  Next Start(const StartTag& t);
  GumboTag Anchor() const;
  Next TemplateStart(const StartTag& t);
  Next HeadStart(const StartTag& t);
  Next ColgroupStart(const StartTag& t);
  Next TableStart(const StartTag& t);
  Next BodyStart(const StartTag& t);
  Next BodyStartByCategory(GumboTag tag);
  Next OpenSvg(const StartTag& t);
  Next ForeignStart(const StartTag& t);

  // End tags by insertion mode.
  bool End(const EndTag& t);
  bool CellEnd(const EndTag& t, GumboTag anchor);
  bool CaptionEnd(const EndTag& t);
  bool ForeignEnd(const EndTag& t);
  bool CloseTemplate();
  bool HeadEnd(GumboTag tag);
  bool TableEnd(GumboTag tag);
  bool BodyEnd(GumboTag tag);
  bool CloseHeading();
  bool CloseAnyOther(GumboTag tag);

  // The stack of open elements.
  void EnterBody();
  void Push(GumboTag tag);
  void PopOne();
  bool PopThrough(size_t index, bool clears_to_marker);
  void PopToTable();
  size_t Find(GumboTag tag, Scope scope) const;
  void GenerateImpliedEndTags(GumboTag except);
  bool CloseAt(size_t index, bool clears_to_marker = false);
  bool ClosePInButtonScope();
  bool CloseListItem(GumboTag tag);

  void Collect(const StartTag& t);
  void Why(const std::string& what, GumboTag top);

  LinkCollector& links_;
  std::vector<GumboTag> stack_;                 // the open elements, <html> first
  std::vector<std::string> foreign_;            // the open SVG elements, innermost last
  std::array<int, GUMBO_TAG_LAST + 1> open_{};  // how many of each tag are on stack_
  int template_depth_ = 0;
  bool head_phase_ = true;      // before <body> (explicit or implied)
  bool head_noscript_ = false;  // inside a <noscript> of the head
  bool head_closed_ = false;    // after </head>
  bool form_pointer_ = false;   // Gumbo's form element pointer is set
  std::string why_;             // what made the model give up
};

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_TREE_MODEL_H_
