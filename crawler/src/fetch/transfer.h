// Transfer: one curl easy handle and the FetchResult it is filling. A
// FetchWorker owns a pool of them and reuses each for many requests. The
// handle keeps the crawl's options from one request to the next (only the
// URL changes) while nothing request-specific was set and the last transfer
// ended cleanly; otherwise Prepare resets it and sets them all again
// (Prepare in transfer.cc says why both).
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
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "crawler/fetch.h"
#include "fetch/error_kind.h"

namespace crawler::fetch_internal {

// What every transfer of one Fetcher shares; outlives the transfers.
struct TransferContext {
  const FetchOptions* options = nullptr;
  CURLSH* share = nullptr;
  std::atomic<uint64_t>* connections_opened = nullptr;
  // Sockets of connections curl closed, in any worker (CURLOPT_CLOSESOCKETFUNCTION).
  std::atomic<uint64_t>* connections_closed = nullptr;
  // Whether a variable naming a proxy for http or https was set when the
  // Fetcher started (ProxyInEnvironment). Unset, and with proxy_env, curl
  // would only read the environment on every request to find no proxy.
  bool proxy_in_environment = true;
  // FetchOptions::resolve as curl's list (owned by the Fetcher); null: none.
  curl_slist* resolve = nullptr;
};

// Whether curl could find a proxy for an http or https URL in the
// environment: http_proxy, https_proxy, all_proxy (and their upper case) set,
// even empty. Read once: a crawl does not change its own environment.
bool ProxyInEnvironment();

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
  // Same, for a prepared transfer curl never took (curl_multi_add_handle
  // failed): no earlier transfer's info leaks into the result.
  FetchResult FinishUnstarted(CURLcode code);

 private:
  explicit Transfer(const TransferContext& context) : context_(context) {}
  // Whether this request may run on the options the handle already holds.
  bool CanKeepOptions() const;
  // Points the handle at FetchRequest::connect_address ("" = none).
  CURLcode ConnectTo(const std::string& address);
  CURLcode ConfigureAfresh();  // reset, then every option (Configure)
  void ForgetOptions();        // reset: the handle holds no option and no info
  CURLcode Configure();
  void ReadInfo();
  bool OverHttp1() const;                // the finished transfer's response was HTTP/1.0 or 1.1
  double SentMs(double fetch_ms) const;  // FetchResult::sent_ms
  static size_t OnBody(char* data, size_t size, size_t count, void* self);
  static size_t OnHeader(char* data, size_t size, size_t count, void* self);
  static int OnDebug(CURL* easy, curl_infotype type, char* data, size_t size, void* self);
  static curl_socket_t OnOpenSocket(void* self, curlsocktype purpose, curl_sockaddr* address);
  static int OnCloseSocket(void* closed_count, curl_socket_t socket);

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
  std::vector<std::string> request_headers_;  // FetchRequest::headers of this request
  // FetchRequest::connect_address as curl's CONNECT_TO list; null: none.
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> connect_to_{nullptr,
                                                                          &curl_slist_free_all};
  uint64_t max_body_ = 0;    // this request's body cap (FetchRequest::max_body or the options')
  bool check_type_ = false;  // the type filter applies and has not yet been asked
  // The handle holds every option of the crawl and none of one request's
  // (false after a reset, and always with FetchOptions::extras).
  bool options_kept_ = false;
  // The last transfer ended without an error, over HTTP/1.x (Finish).
  bool ended_cleanly_ = false;
  // *context_.connections_closed when the last transfer was prepared.
  uint64_t closed_before_ = 0;
  std::chrono::steady_clock::time_point started_;
  char error_buffer_[CURL_ERROR_SIZE] = {};
};

}  // namespace crawler::fetch_internal

#endif  // CRAWLER_SRC_FETCH_TRANSFER_H_
