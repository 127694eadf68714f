// Maps how a transfer ended (curl's code plus what our own callbacks saw) to
// the error kinds of crawler/fetch.h, which is what the crawler records and
// what the hostile-server tests check. Kept apart from the transfer so the
// table reads in one place.
#ifndef CRAWLER_SRC_FETCH_ERROR_KIND_H_
#define CRAWLER_SRC_FETCH_ERROR_KIND_H_

#include <curl/curl.h>

#include <string>
#include <string_view>

namespace crawler::fetch_internal {

// What our callbacks did to the transfer: curl reports both as a generic
// write error or connect failure, only we know why.
struct AbortCause {
  bool body_too_large = false;     // write callback refused bytes beyond max_body
  bool headers_too_large = false;  // header callback refused bytes beyond the header cap
  bool private_address = false;    // open-socket callback refused a non-public address
  bool type_rejected = false;      // write callback refused a body of an unwanted type
};

// Empty for CURLE_OK; else a kind such as "timeout", or "other: <message>"
// with curl's detailed message (`detail`, may be empty) or its generic one.
std::string ErrorKind(CURLcode code, const AbortCause& cause, std::string_view detail);

}  // namespace crawler::fetch_internal

#endif  // CRAWLER_SRC_FETCH_ERROR_KIND_H_
