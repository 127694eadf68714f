// AttributeSafePrefix: a byte scan that finds the first start tag with more
// attributes than a page may have, so the parse can stop before it.
//
// Why: Gumbo checks each new attribute of a tag against the tag's earlier
// ones (duplicates are dropped), a linear walk per attribute: one tag with n
// attributes costs O(n^2). Measured: 25 000 attributes
// 1.6 s, 50 000 6.6 s, 100 000 25 s of CPU for one page, which neither
// --timeout (the fetch is over) nor the nesting guard bounds. Real tags carry
// a handful (an SVG path or a framework's data-* a few dozen); past
// `max_attributes` the page is cut before the tag, so the work per page is at
// most max_attributes x the page's bytes (linear in its size).
//
// Like the nesting guard it is a scan, not a tokenizer: quoted values are
// skipped, comments too; a "<tag" inside a script counts (an over-count that
// only matters past the cap).
#ifndef CRAWLER_SRC_LINKS_ATTRIBUTE_GUARD_H_
#define CRAWLER_SRC_LINKS_ATTRIBUTE_GUARD_H_

#include <cstddef>
#include <string_view>

namespace crawler::links_internal {

// The length of the prefix of `html` before the first start tag with more
// than `max_attributes` attributes (html.size() if there is none).
size_t AttributeSafePrefix(std::string_view html, size_t max_attributes);

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_ATTRIBUTE_GUARD_H_
