// Transfer: one curl easy handle and the FetchResult it is filling. A
// FetchWorker owns a pool of them and reuses each for many requests:
// curl_easy_reset keeps the handle's buffers and caches, so a steady crawl
// allocates no curl state per request.
//
// Threading: used by one fetcher thread at a time; curl calls the callbacks
// on that thread, from inside curl_multi_perform.
#ifndef CRAWLER_SRC_FETCH_TRANSFER_H_
#define CRAWLER_SRC_FETCH_TRANSFER_H_

#include <curl/curl.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "crawler/fetch.h"
#include "fetch/error_kind.h"

namespace crawler::fetch_internal {

// What every transfer of one Fetcher shares; outlives the transfers.
struct TransferContext {
  const FetchOptions* options = nullptr;
  CURLSH* share = nullptr;
  std::atomic<uint64_t>* connections_opened = nullptr;
};

class Transfer {
 public:
  static absl::StatusOr<std::unique_ptr<Transfer>> Create(const TransferContext& context);
  ~Transfer();
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  // Configures the handle for `request` and stamps the start time. False when
  // the request cannot even start (not http/https, or curl refused an
  // option): the result is then complete, take it with Finish(error code).
  [[nodiscard]] bool Prepare(FetchRequest request);

  CURL* easy() const { return easy_; }
  // Recovers the Transfer from an easy handle curl hands back.
  static Transfer* FromEasy(CURL* easy);

  // Fills the result from curl's info and `code` and moves it out. The handle
  // must already be out of the multi handle. Call once per Prepare.
  FetchResult Finish(CURLcode code);
  // Same, for a transfer Shutdown abandoned: error "aborted".
  FetchResult Abandon();

 private:
  explicit Transfer(const TransferContext& context) : context_(context) {}
  CURLcode Configure();
  void ReadInfo();
  double SentMs(double fetch_ms) const;  // FetchResult::sent_ms
  static size_t OnBody(char* data, size_t size, size_t count, void* self);
  static size_t OnHeader(char* data, size_t size, size_t count, void* self);
  static int OnDebug(CURL* easy, curl_infotype type, char* data, size_t size, void* self);
  static curl_socket_t OnOpenSocket(void* self, curlsocktype purpose, curl_sockaddr* address);

  // Whether accept_type refuses this response (asked once; see transfer.cc).
  bool TypeRefused(bool body_arrived);
  // Before the first body bytes: room for the whole declared Content-Length
  // (capped at max_body), so the body is not grown by doubling.
  void ReserveForDeclaredLength();
  CURLcode ConfigureProxy();
  CURLcode ConfigureRequestExtras();

  const TransferContext context_;
  CURL* easy_ = nullptr;
  // The request's header list; curl reads it until the transfer ends, so it
  // lives until the next Prepare or the destructor.
  curl_slist* header_list_ = nullptr;
  RequestExtras extras_;  // the current request's; curl keeps pointers into it
  FetchResult result_;
  AbortCause cause_;
  uint64_t max_body_ = 0;    // this request's body cap (FetchRequest::max_body or the options')
  bool check_type_ = false;  // the type filter applies and has not yet been asked
  std::chrono::steady_clock::time_point started_;
  char error_buffer_[CURL_ERROR_SIZE] = {};
};

}  // namespace crawler::fetch_internal

#endif  // CRAWLER_SRC_FETCH_TRANSFER_H_
