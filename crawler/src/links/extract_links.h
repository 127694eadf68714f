// ExtractLinksFrom: ExtractLinks for callers that may have no page URL.
#ifndef CRAWLER_SRC_LINKS_EXTRACT_LINKS_H_
#define CRAWLER_SRC_LINKS_EXTRACT_LINKS_H_

#include <string_view>

#include "crawler/links.h"

namespace crawler::links_internal {

// page_url may be null: then only absolute links (or links under an absolute
// <base href>) resolve.
PageLinks ExtractLinksFrom(std::string_view body, std::string_view content_type,
                           const Url* page_url, const LinkOptions& options);

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_EXTRACT_LINKS_H_
