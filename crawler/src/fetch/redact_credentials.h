// RedactCredentials: keeps credentials out of the request header block that
// FetchResult::request_headers hands to WARC request records.
//
//   std::string block = "GET / HTTP/1.1\r\nAuthorization: Basic Y3I6cHc=\r\n\r\n";
//   RedactCredentials(block);  // "...Authorization: Basic [redacted]\r\n\r\n"
//
// Threading: a pure function.
#ifndef CRAWLER_SRC_FETCH_REDACT_CREDENTIALS_H_
#define CRAWLER_SRC_FETCH_REDACT_CREDENTIALS_H_

#include <string>

namespace crawler::fetch_internal {

// The value of each Authorization and Proxy-Authorization line (names
// matched case-insensitively) becomes its scheme word and "[redacted]"
// ("Authorization: Basic [redacted]"); a value of one token becomes
// "[redacted]" whole. Every other line stays as it was.
void RedactCredentials(std::string& request_headers);

}  // namespace crawler::fetch_internal

#endif  // CRAWLER_SRC_FETCH_REDACT_CREDENTIALS_H_
