// NestingSafePrefix: a byte scan that finds where a page starts nesting so
// deep that Gumbo would go quadratic, so the parse can stop there.
//
// Why: Gumbo's tree builder checks "is there a <p> in button scope?" (and
// similar) by walking the stack of open elements, for every block start tag;
// formatting tags walk the list of active formatting elements. Unclosed
// <div>s nested n deep therefore cost O(n^2): measured here, 10 000 nested
// <div> parse in 0.4 s, 30 000 in 1.2 s, 100 000 (a 500 KB page) in 25 s.
// A crawler cannot let one page eat a core for that long. Real pages stay
// far below: the guard counts, for the tags that nest this way, start tags
// minus end tags, and cuts the page at the first tag past `max_depth`.
//
// It is an estimate (no tokenizer: a "<div" inside a script counts), biased
// toward over-counting, which only matters beyond max_depth.
#ifndef CRAWLER_SRC_LINKS_NESTING_GUARD_H_
#define CRAWLER_SRC_LINKS_NESTING_GUARD_H_

#include <cstddef>
#include <string_view>

namespace crawler::links_internal {

// The length of the prefix of `html` in which the estimated depth of open
// nesting elements never exceeds `max_depth` (html.size() if it never does).
size_t NestingSafePrefix(std::string_view html, size_t max_depth);

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_NESTING_GUARD_H_
