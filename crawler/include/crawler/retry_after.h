// Retry-After (RFC 9110 section 10.2.3): how long a 429 or 503 response asks
// the client to wait, either delay-seconds ("120") or an HTTP-date ("Sun, 06
// Nov 1994 08:49:37 GMT"; the obsolete RFC 850 and asctime forms too).
//
//   std::optional<absl::Duration> wait =
//       crawler::RetryAfterFromHeaders(result.headers, absl::Now());
//   if (wait) pause_host_for(std::min(*wait, absl::Hours(1)));
//
// The result is not capped (the HostPolicy caps it); a date in the past is a
// zero wait. A value that parses as neither form is nullopt, as if absent.
//
// Threading: pure functions, safe from any thread.
#ifndef CRAWLER_RETRY_AFTER_H_
#define CRAWLER_RETRY_AFTER_H_

#include <optional>
#include <string_view>

#include "absl/time/time.h"

namespace crawler {

// One header value, surrounding whitespace allowed; `now` turns a date into a
// wait.
std::optional<absl::Duration> ParseRetryAfter(std::string_view value, absl::Time now);

// The Retry-After field of a raw response header block (status line and
// "Name: value" lines, CRLF or LF; name case-insensitive). When the block
// holds several responses (an interim 1xx first), the last one counts.
std::optional<absl::Duration> RetryAfterFromHeaders(std::string_view headers, absl::Time now);

}  // namespace crawler

#endif  // CRAWLER_RETRY_AFTER_H_
