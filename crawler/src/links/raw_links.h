// FindRawLinks: the link-bearing attributes of a parsed page, as written (not
// yet resolved), in document order, with what the page says about following
// them. Separate from resolution so that <base href>, which applies to links
// before it too, is known before any link is resolved.
#ifndef CRAWLER_SRC_LINKS_RAW_LINKS_H_
#define CRAWLER_SRC_LINKS_RAW_LINKS_H_

#include <gumbo.h>

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "crawler/links.h"

namespace crawler::links_internal {

struct RawLink {
  std::string_view href;  // attribute value (entities decoded), lives in the Gumbo output
  LinkSource source;
  bool nofollow;  // rel=nofollow on the element itself
};

struct RawPage {
  std::vector<RawLink> links;            // at most max_links of them
  size_t links_found = 0;                // all of them, also those beyond max_links
  std::optional<std::string_view> base;  // href of the first <base href>
  bool page_nofollow = false;            // <meta name=robots content=nofollow|none>
};

// Walks the tree iteratively (an explicit stack, so depth costs heap, not
// call stack). Skips <template> contents, which are inert.
RawPage FindRawLinks(const GumboNode* document, size_t max_links);

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_RAW_LINKS_H_
