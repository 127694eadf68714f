#include "fetch/curl_global.h"

#include <curl/curl.h>

#include "absl/strings/str_cat.h"

namespace crawler::fetch_internal {

absl::Status EnsureCurlGlobalInit() {
  // A function-local static is initialized once, under the compiler's lock.
  static const CURLcode result = curl_global_init(CURL_GLOBAL_ALL);
  if (result != CURLE_OK) {
    return absl::InternalError(
        absl::StrCat("curl_global_init failed: ", curl_easy_strerror(result)));
  }
  return absl::OkStatus();
}

}  // namespace crawler::fetch_internal
