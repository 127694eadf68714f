#include "fetch/curl_share.h"

#include "absl/strings/str_cat.h"

namespace crawler::fetch_internal {

absl::StatusOr<std::unique_ptr<CurlShare>> CurlShare::Create(bool cookies) {
  std::unique_ptr<CurlShare> share(new CurlShare());
  share->share_ = curl_share_init();
  if (share->share_ == nullptr) return absl::InternalError("curl_share_init failed");
  CURLSH* h = share->share_;
  CURLSHcode code = CURLSHE_OK;
  for (curl_lock_data data : {CURL_LOCK_DATA_DNS, CURL_LOCK_DATA_SSL_SESSION}) {
    if (code == CURLSHE_OK) code = curl_share_setopt(h, CURLSHOPT_SHARE, data);
  }
  if (code == CURLSHE_OK && cookies)
    code = curl_share_setopt(h, CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE);
  if (code == CURLSHE_OK) code = curl_share_setopt(h, CURLSHOPT_LOCKFUNC, &CurlShare::Lock);
  if (code == CURLSHE_OK) code = curl_share_setopt(h, CURLSHOPT_UNLOCKFUNC, &CurlShare::Unlock);
  if (code == CURLSHE_OK) code = curl_share_setopt(h, CURLSHOPT_USERDATA, share.get());
  if (code != CURLSHE_OK) {
    return absl::InternalError(absl::StrCat("curl_share_setopt: ", curl_share_strerror(code)));
  }
  return share;
}

CurlShare::~CurlShare() {
  if (share_ != nullptr) curl_share_cleanup(share_);
}

void CurlShare::Lock(CURL*, curl_lock_data data, curl_lock_access, void* self) {
  static_cast<CurlShare*>(self)->locks_[data].lock();
}

void CurlShare::Unlock(CURL*, curl_lock_data data, void* self) {
  static_cast<CurlShare*>(self)->locks_[data].unlock();
}

}  // namespace crawler::fetch_internal
