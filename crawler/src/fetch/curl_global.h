// curl_global_init exactly once per process, from whichever thread gets here
// first. libcurl requires it before any other call and it is not thread-safe
// itself, so every entry point of the fetch room goes through this.
#ifndef CRAWLER_SRC_FETCH_CURL_GLOBAL_H_
#define CRAWLER_SRC_FETCH_CURL_GLOBAL_H_

#include "absl/status/status.h"

namespace crawler::fetch_internal {

// Thread-safe; the first call's result is returned to every later caller.
// Never calls curl_global_cleanup: other code in the process may still use
// curl, and the OS reclaims everything at exit.
absl::Status EnsureCurlGlobalInit();

}  // namespace crawler::fetch_internal

#endif  // CRAWLER_SRC_FETCH_CURL_GLOBAL_H_
