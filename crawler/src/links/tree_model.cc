// TreeModel: the TokenSink calls and the stack of open elements. The
// insertion modes' rules for start tags are in tree_model_start.cc, for end
// tags in tree_model_end.cc.
#include "links/tree_model.h"

#include "links/ascii.h"

namespace crawler::links_internal {
namespace {

bool AllHtmlSpace(std::string_view text) {
  for (const char c : text) {
    if (!IsHtmlSpace(c)) return false;
  }
  return true;
}

}  // namespace

TreeModel::TreeModel(LinkCollector& links) : links_(links) {
  stack_.reserve(64);
  stack_.push_back(GUMBO_TAG_HTML);
}

// ---- The TokenSink calls ----

bool TreeModel::OnText(std::string_view text) {
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
  if ((InTagSet(top, kTableContext) || top == GUMBO_TAG_COLGROUP) && !AllHtmlSpace(text)) {
    Why("text in <", top);
    return false;
  }
  return true;
}

Next TreeModel::OnStartTag(const StartTag& t) {
  const GumboTag top = stack_.back();
  const Next next = Start(t);
  if (next == Next::kFallBack) Why("start tag <" + std::string(t.name) + "> in <", top);
  return next;
}

bool TreeModel::OnEndTag(const EndTag& t) {
  const GumboTag top = stack_.back();
  if (End(t)) return true;
  Why("end tag </" + std::string(t.name) + "> in <", top);
  return false;
}

void TreeModel::Why(const std::string& what, GumboTag top) {
  why_ = what + gumbo_normalized_tagname(top) + ">";
}

// Links, as FindRawLinks reads them off the tree: none inside <template>.
void TreeModel::Collect(const StartTag& t) {
  if (template_depth_ > 0) return;
  const GumboNamespaceEnum ns = InForeignContent() ? GUMBO_NAMESPACE_SVG : GUMBO_NAMESPACE_HTML;
  links_.Visit(t.tag, ns, [&t](LinkAttr a) { return t.attrs[a]; });
}

// ---- The stack of open elements ----

void TreeModel::EnterBody() {
  head_phase_ = false;
  head_noscript_ = false;
  Push(GUMBO_TAG_BODY);
}

void TreeModel::Push(GumboTag tag) {
  stack_.push_back(tag);
  ++open_[tag];
  if (tag == GUMBO_TAG_TEMPLATE) ++template_depth_;
}

void TreeModel::PopOne() {
  const GumboTag tag = stack_.back();
  stack_.pop_back();
  --open_[tag];
  if (tag == GUMBO_TAG_TEMPLATE) --template_depth_;
}

// Pops the elements above `index` and the one at it. A formatting element
// popped from above would stay in the list of active formatting elements
// and be cloned later: not followed, unless the pop clears the list to the
// marker the target set (cells, captions, applet/marquee/object).
bool TreeModel::PopThrough(size_t index, bool clears_to_marker) {
  while (stack_.size() > index + 1) {
    if (!clears_to_marker && InTagSet(stack_.back(), kFormatting)) return false;
    PopOne();
  }
  PopOne();
  return true;
}

void TreeModel::PopToTable() {
  while (stack_.back() != GUMBO_TAG_TABLE) PopOne();
}

size_t TreeModel::Find(GumboTag tag, Scope scope) const {
  for (size_t i = stack_.size(); i-- > 0;) {
    if (stack_[i] == tag) return i;
    if (BoundsScope(stack_[i], scope)) return kNone;
  }
  return kNone;
}

void TreeModel::GenerateImpliedEndTags(GumboTag except) {
  while (InTagSet(stack_.back(), kImpliedEnd) && stack_.back() != except) PopOne();
}

// Gumbo's implicitly_close_tags: implied end tags, then pop to `index`.
bool TreeModel::CloseAt(size_t index, bool clears_to_marker) {
  GenerateImpliedEndTags(stack_[index]);
  return PopThrough(index, clears_to_marker);
}

bool TreeModel::ClosePInButtonScope() {
  const size_t p = Find(GUMBO_TAG_P, Scope::kButton);
  return p == kNone || CloseAt(p);
}

// <li>, <dd>, <dt> close an open one unless a special element other than
// address, div, p is between.
bool TreeModel::CloseListItem(GumboTag tag) {
  for (size_t i = stack_.size(); i-- > 0;) {
    const GumboTag node = stack_[i];
    const bool match =
        tag == GUMBO_TAG_LI ? node == GUMBO_TAG_LI : (node == GUMBO_TAG_DD || node == GUMBO_TAG_DT);
    if (match) return CloseAt(i);
    if (InTagSet(node, kSpecial) && node != GUMBO_TAG_ADDRESS && node != GUMBO_TAG_DIV &&
        node != GUMBO_TAG_P) {
      return true;
    }
  }
  return true;
}

// The innermost element that sets the insertion mode.
GumboTag TreeModel::Anchor() const {
  for (size_t i = stack_.size(); i-- > 0;) {
    if (InTagSet(stack_[i], kModeAnchor)) return stack_[i];
  }
  return GUMBO_TAG_HTML;
}

}  // namespace crawler::links_internal
