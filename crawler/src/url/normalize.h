// The crawler's normalization of an http(s) URL serialization for the
// seen-check. Internal to the url room; the contract is NormalizeForSeen in
// crawler/url.h.
#ifndef CRAWLER_SRC_URL_NORMALIZE_H_
#define CRAWLER_SRC_URL_NORMALIZE_H_

#include <string>

#include "absl/status/status.h"
#include "crawler/url.h"

namespace crawler::url_internal {

// Rewrites `href`, the WHATWG serialization of an http(s) URL without its
// fragment, in place. Fails if the result is longer than options.max_length.
absl::Status NormalizeHttpHref(std::string& href, const NormalizeOptions& options);
// NormalizeHttpHref for an `href` known to hold no userinfo.
absl::Status NormalizeHttpHrefWithoutUserinfo(std::string& href, const NormalizeOptions& options);

// Decodes %XX escapes of unreserved characters (ALPHA DIGIT - . _ ~) and
// upper-cases the hex digits of the others (RFC 3986 sections 6.2.2.1 and
// 6.2.2.2), in place, from index `from`.
void NormalizePercentEscapes(std::string& s, size_t from);

// Our choice, opt-in: removes session-id parameters and ";jsessionid=".
// Returns whether the path changed: then it may hold a dot segment
// ("/a/.;jsessionid=1" leaves "/a/.") that the parser would resolve.
bool StripSessionIds(std::string& href);
// Our choice, opt-in: sorts the query's '&'-separated parameters.
void SortQuery(std::string& href);

}  // namespace crawler::url_internal

#endif  // CRAWLER_SRC_URL_NORMALIZE_H_
