// WalkMarkup: a forward scan of HTML that follows the tokenizer just far
// enough to tell markup (tags, comments, doctypes, raw-text elements with
// their content) from the text between it, and whether the tokenizer is then
// in its data state outside context-sensitive elements. It serves two
// passes that must never guess: where a big page may be cut into pieces
// (chunk_boundaries.h) and which text may be collapsed before the parse
// (text_collapse.h). When unsure, it stops.
//
// What it follows: start and end tags (name, then attributes up to the '>'
// that is not inside a quoted value), comments ("<!-->", "<!--->", "-->",
// "--!>"), doctypes and bogus comments ("<!", "<?", "</" + not a letter; "</>"
// is dropped), CDATA inside svg/math,
// raw-text and RCDATA elements (script, style, textarea, title, xmp, iframe,
// noembed, noframes: skipped to their end tag as one item), and the depth of
// elements whose content parses differently (template, svg, math, select,
// frameset, and noscript: markup to Gumbo, which parses with scripting off,
// raw text with scripting on). It stops at <plaintext>, at markup that runs to
// the end of the input, and in a script whose "<!--" escape makes its end
// uncertain. A '<' that opens no markup is text. Attributes are read with
// the tokenizer's own states, so a quote opens a value only after "name=".
// What it does not follow is the tree builder: which elements are open (it
// counts svg/math/template/select/frameset start and end tags), so a CDATA
// section may be misread where svg or math was closed implicitly; callers
// keep text holding "]]>" as it is.
//
// Threading: a pure function.
#ifndef CRAWLER_SRC_LINKS_MARKUP_WALK_H_
#define CRAWLER_SRC_LINKS_MARKUP_WALK_H_

#include <cstddef>
#include <string_view>

#include "absl/functional/function_ref.h"

namespace crawler::links_internal {

struct MarkupItem {
  size_t begin = 0;  // its '<'
  size_t end = 0;    // one past its last byte
  // A cut just before it leaves each side parseable alone: it is a start or
  // end tag, met in the data state outside every context-sensitive element.
  bool safe_cut = false;
};

// Calls `on_markup` for each markup item in order; the bytes between items
// are text. Returns where the walk ended: html.size(), or the '<' of the
// markup it could not follow (nothing from there on is known).
size_t WalkMarkup(std::string_view html, absl::FunctionRef<void(const MarkupItem&)> on_markup);

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_MARKUP_WALK_H_
