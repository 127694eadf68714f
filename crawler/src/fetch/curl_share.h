// CurlShare: one curl share handle for every transfer of a Fetcher, so all
// fetcher threads see one DNS cache and one TLS session cache (a session
// resumed on another thread's connection skips a full handshake).
// Connections are NOT shared: libcurl does not support sharing a connection
// cache between concurrently running multi handles, so each fetcher thread
// keeps its own (in its multi handle).
//
// Threading: the share handle locks itself through the callbacks installed
// here; any thread may use it. Destroy it only after every easy handle using
// it is gone.
#ifndef CRAWLER_SRC_FETCH_CURL_SHARE_H_
#define CRAWLER_SRC_FETCH_CURL_SHARE_H_

#include <curl/curl.h>

#include <array>
#include <memory>
#include <mutex>

#include "absl/status/statusor.h"

namespace crawler::fetch_internal {

class CurlShare {
 public:
  // `cookies`: also one cookie jar for all transfers (FetchOptions::cookies).
  static absl::StatusOr<std::unique_ptr<CurlShare>> Create(bool cookies);
  ~CurlShare();
  CurlShare(const CurlShare&) = delete;
  CurlShare& operator=(const CurlShare&) = delete;

  CURLSH* handle() const { return share_; }

 private:
  CurlShare() = default;
  static void Lock(CURL*, curl_lock_data data, curl_lock_access, void* self);
  static void Unlock(CURL*, curl_lock_data data, void* self);

  CURLSH* share_ = nullptr;
  // One mutex per kind of shared data: a DNS lookup does not wait for a
  // TLS session store.
  std::array<std::mutex, CURL_LOCK_DATA_LAST> locks_;
};

}  // namespace crawler::fetch_internal

#endif  // CRAWLER_SRC_FETCH_CURL_SHARE_H_
