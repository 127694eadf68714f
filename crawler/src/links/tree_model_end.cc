// TreeModel's end tags, one method per insertion mode the model follows:
// which open element the tag closes, and false where Gumbo's tree would do
// what the model does not follow (a formatting element popped from above,
// an end tag that reaches HTML from SVG, a table part out of place).
#include "links/tree_model.h"

namespace crawler::links_internal {

bool TreeModel::End(const EndTag& t) {
  const GumboTag tag = t.tag;
  if (!foreign_.empty()) return ForeignEnd(t);
  if (template_depth_ > 0) return tag == GUMBO_TAG_TEMPLATE ? CloseTemplate() : true;
  if (head_phase_) return HeadEnd(tag);
  const GumboTag top = stack_.back();
  if (top == GUMBO_TAG_COLGROUP) {
    if (tag == GUMBO_TAG_COL || tag == GUMBO_TAG_TEMPLATE) return true;
    PopOne();
    return tag == GUMBO_TAG_COLGROUP || End(t);
  }
  if (InTagSet(top, kTableContext)) return TableEnd(tag);
  const GumboTag anchor = Anchor();
  if (anchor == GUMBO_TAG_TD || anchor == GUMBO_TAG_TH) return CellEnd(t, anchor);
  if (anchor == GUMBO_TAG_CAPTION) return CaptionEnd(t);
  return BodyEnd(tag);
}

// "in cell".
bool TreeModel::CellEnd(const EndTag& t, GumboTag anchor) {
  const GumboTag tag = t.tag;
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
      return End(t);
    default:
      return BodyEnd(tag);
  }
}

// "in caption".
bool TreeModel::CaptionEnd(const EndTag& t) {
  const GumboTag tag = t.tag;
  switch (tag) {
    case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_TABLE:
      if (!CloseAt(Find(GUMBO_TAG_CAPTION, Scope::kTable), /*clears_to_marker=*/true)) {
        return false;
      }
      return tag == GUMBO_TAG_CAPTION || End(t);
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

// "Any other end tag" in foreign content: close the nearest foreign
// element of that name; one that reaches HTML is not followed.
bool TreeModel::ForeignEnd(const EndTag& t) {
  // Gumbo compares all of "</...>" between "</" and ">": "</g >" is no "g".
  if (!t.bare) return false;
  for (size_t i = foreign_.size(); i-- > 0;) {
    if (foreign_[i] == t.name) {
      foreign_.resize(i);
      if (foreign_.empty()) PopOne();  // the <svg> itself closed
      return true;
    }
  }
  return false;
}

bool TreeModel::CloseTemplate() {
  for (size_t i = stack_.size(); i-- > 0;) {
    if (stack_[i] == GUMBO_TAG_TEMPLATE) return PopThrough(i, /*clears_to_marker=*/true);
  }
  return true;
}

bool TreeModel::HeadEnd(GumboTag tag) {
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

bool TreeModel::TableEnd(GumboTag tag) {
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

bool TreeModel::BodyEnd(GumboTag tag) {
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
  if (InTagSet(tag, kBlockEnd)) {
    const size_t at = Find(tag, Scope::kDefault);
    return at == kNone || CloseAt(at);
  }
  if (InTagSet(tag, kHeading)) return CloseHeading();
  if (InTagSet(tag, kFormatting)) {
    if (stack_.back() == tag) {
      PopOne();
      return true;
    }
    return open_[tag] == 0;  // elsewhere on the stack: the adoption agency
  }
  return CloseAnyOther(tag);
}

// Any heading end tag closes the nearest open heading in scope.
bool TreeModel::CloseHeading() {
  for (size_t i = stack_.size(); i-- > 0;) {
    if (InTagSet(stack_[i], kHeading)) {
      GenerateImpliedEndTags(GUMBO_TAG_LAST);
      return PopThrough(i, false);
    }
    if (BoundsScope(stack_[i], Scope::kDefault)) return true;
  }
  return true;
}

// Any other end tag: the nearest element of that tag unless a special one
// comes first.
bool TreeModel::CloseAnyOther(GumboTag tag) {
  for (size_t i = stack_.size(); i-- > 0;) {
    if (stack_[i] == tag) {
      GenerateImpliedEndTags(tag);
      return PopThrough(i, false);
    }
    if (InTagSet(stack_[i], kSpecial)) return true;
  }
  return true;
}

}  // namespace crawler::links_internal
