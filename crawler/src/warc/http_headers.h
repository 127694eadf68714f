// The HTTP header blocks stored in request and response records, made
// well-formed (CRLF lines, one empty line at the end) and, for responses, true
// of the stored body: see "The payload we store" in crawler/warc.h.
// Thread-safe (pure functions).
#ifndef CRAWLER_SRC_WARC_HTTP_HEADERS_H_
#define CRAWLER_SRC_WARC_HTTP_HEADERS_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace crawler::warc_internal {

// Lines end in CRLF and the block ends with one empty line. Anything after a
// first empty line (a second header block) is dropped.
std::string NormalizeHeaderBlock(absl::string_view block);

// NormalizeHeaderBlock plus: Transfer-Encoding always, Content-Encoding when
// `content_decoded`, and a Content-Length other than `body_size` are renamed
// X-Crawl-Original-<name>; a renamed Content-Length is followed by a true one.
// A response without Content-Length (e.g. chunked) gets none: the WARC record's
// own Content-Length already bounds the body.
std::string RewriteResponseHeaders(absl::string_view block, size_t body_size, bool content_decoded);

}  // namespace crawler::warc_internal

#endif  // CRAWLER_SRC_WARC_HTTP_HEADERS_H_
