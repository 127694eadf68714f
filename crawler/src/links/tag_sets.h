// The tag categories of Gumbo 0.10.1's tree builder (parser.c) that the
// scanner's tree model reads, as one constexpr bit table indexed by
// GumboTag: InTagSet(tag, kFormatting) is one load and one test, and each
// category is listed once, next to its name, instead of in a switch.
//
// Example:
//   if (InTagSet(GUMBO_TAG_B, kFormatting)) ...  // true
//   if (BoundsScope(GUMBO_TAG_TD, Scope::kButton)) ...  // true
//
// Threading: constants only.
#ifndef CRAWLER_SRC_LINKS_TAG_SETS_H_
#define CRAWLER_SRC_LINKS_TAG_SETS_H_

#include <gumbo.h>

#include <array>
#include <cstdint>
#include <initializer_list>

namespace crawler::links_internal {

enum TagSet : uint16_t {
  kSpecial = 1 << 0,             // Gumbo's "special" category, HTML namespace
  kFormatting = 1 << 1,          // the elements of the list of active formatting elements
  kBlockStart = 1 << 2,          // start tags that close a <p> in button scope and open a block
  kBlockEnd = 1 << 3,            // end tags closed by "has an element in scope", then popped to
  kImpliedEnd = 1 << 4,          // popped by "generate implied end tags"
  kHeading = 1 << 5,             // h1-h6
  kTableSection = 1 << 6,        // tbody, thead, tfoot
  kTableContext = 1 << 7,        // the current nodes of "in table", "in table body", "in row"
  kTablePartStart = 1 << 8,      // table parts that close a cell or a caption when they start
  kModeAnchor = 1 << 9,          // elements that set the insertion mode (the model's Anchor)
  kBoundsAllScopes = 1 << 10,    // html, table, template: bound every scope, table scope too
  kBoundsScope = 1 << 11,        // bound the default scope (and list-item and button scope)
  kBoundsListScope = 1 << 12,    // ol, ul: bound list-item scope only
  kBoundsButtonScope = 1 << 13,  // button: bounds button scope only
};

namespace tag_sets_detail {

using Table = std::array<uint16_t, GUMBO_TAG_LAST + 1>;

constexpr void Mark(Table& table, uint16_t set, std::initializer_list<GumboTag> tags) {
  for (const GumboTag tag : tags) table[tag] |= set;
}

constexpr Table Build() {
  Table t{};
  Mark(t, kSpecial,
       {GUMBO_TAG_ADDRESS,    GUMBO_TAG_APPLET,     GUMBO_TAG_AREA,     GUMBO_TAG_ARTICLE,
        GUMBO_TAG_ASIDE,      GUMBO_TAG_BASE,       GUMBO_TAG_BASEFONT, GUMBO_TAG_BGSOUND,
        GUMBO_TAG_BLOCKQUOTE, GUMBO_TAG_BODY,       GUMBO_TAG_BR,       GUMBO_TAG_BUTTON,
        GUMBO_TAG_CAPTION,    GUMBO_TAG_CENTER,     GUMBO_TAG_COL,      GUMBO_TAG_COLGROUP,
        GUMBO_TAG_MENUITEM,   GUMBO_TAG_DD,         GUMBO_TAG_DETAILS,  GUMBO_TAG_DIR,
        GUMBO_TAG_DIV,        GUMBO_TAG_DL,         GUMBO_TAG_DT,       GUMBO_TAG_EMBED,
        GUMBO_TAG_FIELDSET,   GUMBO_TAG_FIGCAPTION, GUMBO_TAG_FIGURE,   GUMBO_TAG_FOOTER,
        GUMBO_TAG_FORM,       GUMBO_TAG_FRAME,      GUMBO_TAG_FRAMESET, GUMBO_TAG_H1,
        GUMBO_TAG_H2,         GUMBO_TAG_H3,         GUMBO_TAG_H4,       GUMBO_TAG_H5,
        GUMBO_TAG_H6,         GUMBO_TAG_HEAD,       GUMBO_TAG_HEADER,   GUMBO_TAG_HGROUP,
        GUMBO_TAG_HR,         GUMBO_TAG_HTML,       GUMBO_TAG_IFRAME,   GUMBO_TAG_IMG,
        GUMBO_TAG_INPUT,      GUMBO_TAG_ISINDEX,    GUMBO_TAG_LI,       GUMBO_TAG_LINK,
        GUMBO_TAG_LISTING,    GUMBO_TAG_MARQUEE,    GUMBO_TAG_MENU,     GUMBO_TAG_META,
        GUMBO_TAG_NAV,        GUMBO_TAG_NOEMBED,    GUMBO_TAG_NOFRAMES, GUMBO_TAG_NOSCRIPT,
        GUMBO_TAG_OBJECT,     GUMBO_TAG_OL,         GUMBO_TAG_P,        GUMBO_TAG_PARAM,
        GUMBO_TAG_PLAINTEXT,  GUMBO_TAG_PRE,        GUMBO_TAG_SCRIPT,   GUMBO_TAG_SECTION,
        GUMBO_TAG_SELECT,     GUMBO_TAG_STYLE,      GUMBO_TAG_SUMMARY,  GUMBO_TAG_TABLE,
        GUMBO_TAG_TBODY,      GUMBO_TAG_TD,         GUMBO_TAG_TEMPLATE, GUMBO_TAG_TEXTAREA,
        GUMBO_TAG_TFOOT,      GUMBO_TAG_TH,         GUMBO_TAG_THEAD,    GUMBO_TAG_TITLE,
        GUMBO_TAG_TR,         GUMBO_TAG_UL,         GUMBO_TAG_WBR,      GUMBO_TAG_XMP});
  Mark(t, kFormatting,
       {GUMBO_TAG_A, GUMBO_TAG_B, GUMBO_TAG_BIG, GUMBO_TAG_CODE, GUMBO_TAG_EM, GUMBO_TAG_FONT,
        GUMBO_TAG_I, GUMBO_TAG_NOBR, GUMBO_TAG_S, GUMBO_TAG_SMALL, GUMBO_TAG_STRIKE,
        GUMBO_TAG_STRONG, GUMBO_TAG_TT, GUMBO_TAG_U});
  // The blocks whose start and end tags both follow the "block" rules.
  Mark(t, kBlockStart | kBlockEnd,
       {GUMBO_TAG_ADDRESS, GUMBO_TAG_ARTICLE,  GUMBO_TAG_ASIDE,      GUMBO_TAG_BLOCKQUOTE,
        GUMBO_TAG_CENTER,  GUMBO_TAG_DETAILS,  GUMBO_TAG_DIR,        GUMBO_TAG_DIV,
        GUMBO_TAG_DL,      GUMBO_TAG_FIELDSET, GUMBO_TAG_FIGCAPTION, GUMBO_TAG_FIGURE,
        GUMBO_TAG_FOOTER,  GUMBO_TAG_HEADER,   GUMBO_TAG_HGROUP,     GUMBO_TAG_MENU,
        GUMBO_TAG_MAIN,    GUMBO_TAG_NAV,      GUMBO_TAG_OL,         GUMBO_TAG_SECTION,
        GUMBO_TAG_SUMMARY, GUMBO_TAG_UL});
  // <p> starts like a block but ends by its own rule; <button>, <listing>
  // and <pre> end like one but start by their own.
  Mark(t, kBlockStart, {GUMBO_TAG_P});
  Mark(t, kBlockEnd, {GUMBO_TAG_BUTTON, GUMBO_TAG_LISTING, GUMBO_TAG_PRE});
  Mark(t, kImpliedEnd,
       {GUMBO_TAG_DD, GUMBO_TAG_DT, GUMBO_TAG_LI, GUMBO_TAG_OPTGROUP, GUMBO_TAG_OPTION, GUMBO_TAG_P,
        GUMBO_TAG_RB, GUMBO_TAG_RP, GUMBO_TAG_RT, GUMBO_TAG_RTC});
  Mark(t, kHeading,
       {GUMBO_TAG_H1, GUMBO_TAG_H2, GUMBO_TAG_H3, GUMBO_TAG_H4, GUMBO_TAG_H5, GUMBO_TAG_H6});
  Mark(t, kTableSection | kTableContext | kTablePartStart,
       {GUMBO_TAG_TBODY, GUMBO_TAG_THEAD, GUMBO_TAG_TFOOT});
  Mark(t, kTableContext | kTablePartStart, {GUMBO_TAG_TR});
  Mark(t, kTableContext, {GUMBO_TAG_TABLE});
  Mark(t, kTablePartStart,
       {GUMBO_TAG_CAPTION, GUMBO_TAG_COL, GUMBO_TAG_COLGROUP, GUMBO_TAG_TD, GUMBO_TAG_TH});
  Mark(t, kModeAnchor,
       {GUMBO_TAG_TD, GUMBO_TAG_TH, GUMBO_TAG_CAPTION, GUMBO_TAG_TABLE, GUMBO_TAG_TEMPLATE,
        GUMBO_TAG_HTML});
  Mark(t, kBoundsAllScopes, {GUMBO_TAG_HTML, GUMBO_TAG_TABLE, GUMBO_TAG_TEMPLATE});
  Mark(t, kBoundsScope,
       {GUMBO_TAG_APPLET, GUMBO_TAG_CAPTION, GUMBO_TAG_TD, GUMBO_TAG_TH, GUMBO_TAG_MARQUEE,
        GUMBO_TAG_OBJECT});
  Mark(t, kBoundsListScope, {GUMBO_TAG_OL, GUMBO_TAG_UL});
  Mark(t, kBoundsButtonScope, {GUMBO_TAG_BUTTON});
  return t;
}

}  // namespace tag_sets_detail

inline constexpr tag_sets_detail::Table kTagSets = tag_sets_detail::Build();

// Whether `tag` (any GumboTag, GUMBO_TAG_LAST included) is in any of `sets`.
constexpr bool InTagSet(GumboTag tag, uint16_t sets) { return (kTagSets[tag] & sets) != 0; }

// The scopes of "has an element in ... scope": each is bounded by the
// elements of its mask.
enum class Scope : uint16_t {
  kDefault = kBoundsAllScopes | kBoundsScope,
  kListItem = kBoundsAllScopes | kBoundsScope | kBoundsListScope,
  kButton = kBoundsAllScopes | kBoundsScope | kBoundsButtonScope,
  kTable = kBoundsAllScopes,
};

constexpr bool BoundsScope(GumboTag tag, Scope scope) {
  return InTagSet(tag, static_cast<uint16_t>(scope));
}

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_TAG_SETS_H_
