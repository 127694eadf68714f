// The common link resolved without the WHATWG parser: a relative path of
// plain bytes against an http(s) page. Internal to the url room; ResolveLink
// (crawler/url.h) is the contract and calls this first.
#ifndef CRAWLER_SRC_URL_SIMPLE_RESOLVE_H_
#define CRAWLER_SRC_URL_SIMPLE_RESOLVE_H_

#include <optional>
#include <string>
#include <string_view>

#include "crawler/url.h"

namespace crawler::url_internal {

// Url::Parse(href, &base)'s href() without its fragment, byte for byte, when
// `base` is an http(s) URL without userinfo and `href`, before any '#', is
// simple: empty (the page itself), or a path of ASCII letters, digits and
// "-._~/" not starting with "//", or such a path after the page's own origin
// exactly as serialized ("http://127.0.0.1:8083/a.html"). nullopt otherwise:
// the caller parses in full. Simple hrefs are most of a site's links
// ("/a/b.html", "c.html", "../d/", "#top"), and the full parser spent ~2,000
// instructions on each (a tenth of a crawl's). Nothing here normalizes: the
// result is what the parser would serialize.
std::optional<std::string> ResolveSimpleLink(const Url& base, std::string_view href);

}  // namespace crawler::url_internal

#endif  // CRAWLER_SRC_URL_SIMPLE_RESOLVE_H_
