// CollapseText: the page as Gumbo needs it to find the same links, with each
// long run of text between markup replaced by one character of its kind.
//
// Why: a link extractor reads tags and attributes only, yet Gumbo decodes,
// buffers and stores every character of text (a third to two thirds of a
// typical page's bytes and of its parse time). What text does to the tree,
// and so to which link elements exist and where, depends only on whether a
// run holds a character other than whitespace (the HTML standard's tree
// construction: implied <body>, foster parenting out of tables, the
// frameset-ok flag, reconstructing formatting elements are all triggered by
// the first character token of a run, by its class). So a run with any
// other character becomes "x"; a run of whitespace, NULs and character
// references only (a reference may decode to whitespace) is kept as is, as
// are runs under 8 bytes or holding "]]>", raw-text and RCDATA content (script, style, title,
// textarea, ...), and everything from where WalkMarkup stops being sure
// (<plaintext>, an escaped script, markup running to the end).
//
// What differs in Gumbo's output: text nodes (we read none) and positions
// (we use none). tests/crawler/links/text_collapse_test.cc compares the
// links extracted with and without it on every page we have.
//
// Threading: a pure function.
#ifndef CRAWLER_SRC_LINKS_TEXT_COLLAPSE_H_
#define CRAWLER_SRC_LINKS_TEXT_COLLAPSE_H_

#include <string>
#include <string_view>

namespace crawler::links_internal {

std::string CollapseText(std::string_view html);

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_TEXT_COLLAPSE_H_
