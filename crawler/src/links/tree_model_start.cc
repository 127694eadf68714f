// TreeModel's start tags, one method per insertion mode the model follows:
// what the tag does to the stack of open elements, which tokenizer state it
// switches to, and Next::kFallBack where Gumbo's tree would do what the
// model does not follow.
#include "links/tree_model.h"

namespace crawler::links_internal {
namespace {

// Beyond this many open elements the scope searches would cost too much per
// tag; Gumbo takes such a page (the nesting guard allows 4096).
constexpr size_t kMaxModelDepth = 1024;

// The tokenizer state a start tag switches to (in HTML content).
Next TokenizerSwitch(GumboTag tag) {
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

bool IsIntegrationPoint(std::string_view name) {
  return name == "foreignobject" || name == "desc" || name == "title";
}

// Gumbo matches foreign end tags against the start tag's raw text cut at C
// isspace() or '/': the model keeps to names where that is the name.
bool IsPlainForeignName(std::string_view name) {
  for (const char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == ':' ||
          c == '.')) {
      return false;
    }
  }
  return true;
}

}  // namespace

Next TreeModel::Start(const StartTag& t) {
  if (stack_.size() + foreign_.size() > kMaxModelDepth) return Next::kFallBack;
  if (!foreign_.empty()) return ForeignStart(t);
  if (template_depth_ > 0) return TemplateStart(t);
  if (head_phase_) return HeadStart(t);
  const GumboTag top = stack_.back();
  if (top == GUMBO_TAG_COLGROUP) return ColgroupStart(t);
  if (InTagSet(top, kTableContext)) return TableStart(t);
  const GumboTag anchor = Anchor();
  if ((anchor == GUMBO_TAG_TD || anchor == GUMBO_TAG_TH) && InTagSet(t.tag, kTablePartStart)) {
    if (!PopThrough(Find(anchor, Scope::kTable), /*clears_to_marker=*/true)) {
      return Next::kFallBack;
    }
    return Start(t);
  }
  if (anchor == GUMBO_TAG_CAPTION && InTagSet(t.tag, kTablePartStart)) {
    PopThrough(Find(GUMBO_TAG_CAPTION, Scope::kTable), /*clears_to_marker=*/true);
    return Start(t);
  }
  return BodyStart(t);
}

// Inside <template>: nothing is collected and only what changes the
// tokenizer or leaves the template is followed.
Next TreeModel::TemplateStart(const StartTag& t) {
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

// Before <body>: the "in head", "in head noscript" and "after head" modes.
Next TreeModel::HeadStart(const StartTag& t) {
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

Next TreeModel::ColgroupStart(const StartTag& t) {
  if (t.tag == GUMBO_TAG_COL) return Next::kData;
  if (t.tag == GUMBO_TAG_TEMPLATE) {
    Push(GUMBO_TAG_TEMPLATE);
    return Next::kData;
  }
  if (t.tag == GUMBO_TAG_HTML) return Next::kFallBack;
  PopOne();  // the colgroup closes; "in table" takes the tag
  return Start(t);
}

// "in table", "in table body", "in row": what would be foster-parented is
// not followed.
Next TreeModel::TableStart(const StartTag& t) {
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
// searches): the tags with a rule of their own.
Next TreeModel::BodyStart(const StartTag& t) {
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
  return BodyStartByCategory(tag);
}

// "in body": the tags whose rule is their category's.
Next TreeModel::BodyStartByCategory(GumboTag tag) {
  if (InTagSet(tag, kFormatting)) {
    if (open_[tag] >= 2) return Next::kFallBack;  // the Noah's Ark clause
    Push(tag);
    return Next::kData;
  }
  if (InTagSet(tag, kBlockStart) || tag == GUMBO_TAG_PRE || tag == GUMBO_TAG_LISTING) {
    if (!ClosePInButtonScope()) return Next::kFallBack;
    Push(tag);
    return Next::kData;
  }
  if (InTagSet(tag, kHeading)) {
    if (!ClosePInButtonScope()) return Next::kFallBack;
    if (InTagSet(stack_.back(), kHeading)) PopOne();
    Push(tag);
    return Next::kData;
  }
  Push(tag);
  return Next::kData;
}

// <svg> in body: a foreign element. Its subtree is kept in foreign_ (raw
// lowercased names, as Gumbo matches foreign end tags by name) under one
// GUMBO_TAG_SVG entry in stack_, which no HTML rule ever matches.
Next TreeModel::OpenSvg(const StartTag& t) {
  if (t.self_closing) return Next::kData;
  Push(GUMBO_TAG_SVG);
  foreign_.emplace_back("svg");
  return Next::kData;
}

// "in foreign content", SVG only: elements nest by name; a start tag
// that breaks out into HTML, any HTML inside an integration point
// (foreignObject, desc, title) and MathML are not followed.
Next TreeModel::ForeignStart(const StartTag& t) {
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
  if (!IsPlainForeignName(t.name)) return Next::kFallBack;
  if (!t.self_closing) foreign_.emplace_back(t.name);
  return Next::kData;  // the tokenizer stays in data: no RAWTEXT in SVG
}

}  // namespace crawler::links_internal
