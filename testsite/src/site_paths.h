// The site's URL paths: how a page, redirect or file number is spelled in a
// path, and the strict inverse (no leading zeros, no signs), so that each
// resource has exactly one path and a crawler's de-duplication is testable.
// Threading: pure functions.
#ifndef TESTSITE_SRC_SITE_PATHS_H_
#define TESTSITE_SRC_SITE_PATHS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "site_graph.h"

namespace testsite {

// "/" for page 0, "/p/<i>.html" otherwise.
std::string PagePath(uint64_t page);
// The path a link points at, before any spelling (see LinkForm).
std::string LinkPath(const Link& link);

// The number in `path` when it is exactly prefix + decimal + suffix.
std::optional<uint64_t> ParseNumberedPath(std::string_view path, std::string_view prefix,
                                          std::string_view suffix);

}  // namespace testsite

#endif  // TESTSITE_SRC_SITE_PATHS_H_
