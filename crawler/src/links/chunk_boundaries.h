// SafeChunkEnds: where a big HTML page may be cut so that each piece, parsed
// by Gumbo as a document of its own, yields the links the whole page yields.
//
// Why: Gumbo keeps the whole tree, 8-12 bytes per byte of HTML (31 MB for the
// Python docs' 3.9 MB changelog), and a link extractor needs none of it after
// the walk. Parsing a big page in ~128 KiB pieces bounds that memory to a few
// MB per parser thread, whatever the page size.
//
// A cut is made only just before a '<' that opens a start or end tag while
// the tokenizer is in its data state and no element is open whose content
// depends on its context: not inside a tag, comment, bogus comment, doctype,
// raw-text or RCDATA element (script, style, textarea, title, xmp, iframe,
// noembed, noframes, noscript), and not inside template, svg, math, select or
// frameset. After <plaintext>, or in a script whose "<!--" escape makes its
// end uncertain, no further cut is made. Tree-construction state that does
// carry over a cut (open <a>, tables) changes where elements hang in the
// tree, not which link-bearing elements exist; the one visible difference is
// that Gumbo may clone a misnested <a href> once more or once less (the
// "reconstruct the active formatting elements" step), i.e. a duplicate link.
//
// Threading: a pure function.
#ifndef CRAWLER_SRC_LINKS_CHUNK_BOUNDARIES_H_
#define CRAWLER_SRC_LINKS_CHUNK_BOUNDARIES_H_

#include <cstddef>
#include <string_view>
#include <vector>

namespace crawler::links_internal {

// Ends of consecutive pieces of `html`, each at least `target_bytes` long
// (except the last), cut at the first safe point after that length. The last
// end is always html.size(); a page with no safe point gives {html.size()}.
std::vector<size_t> SafeChunkEnds(std::string_view html, size_t target_bytes);

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_CHUNK_BOUNDARIES_H_
