#include "fetch/transfer.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "fetch/address_policy.h"
#include "fetch/redact_credentials.h"

namespace crawler::fetch_internal {
namespace {

// A header block this large is an attack or a bug, not a web page.
// 256 KiB: below the 300 KB total that later curl releases enforce themselves,
// so the cap that fires, and the error kind, is ours on every curl version.
constexpr size_t kMaxHeaderBytes = 256 << 10;

bool HasHttpScheme(const std::string& url) {
  return absl::StartsWithIgnoreCase(url, "http://") || absl::StartsWithIgnoreCase(url, "https://");
}

// Over TLS, wait for a connection that may turn out to multiplex (HTTP/2)
// rather than open a second one. Plain http is HTTP/1.1 here and never
// multiplexes, so waiting would only serialize the first requests to a host.
bool MayMultiplex(const FetchOptions& options, const std::string& url) {
  return options.http2 && absl::StartsWithIgnoreCase(url, "https://");
}

long ToMillis(double seconds) { return static_cast<long>(std::llround(seconds * 1000)); }

std::string InfoString(CURL* easy, CURLINFO info) {
  char* value = nullptr;
  if (curl_easy_getinfo(easy, info, &value) != CURLE_OK || value == nullptr) return "";
  return value;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Transfer>> Transfer::Create(const TransferContext& context) {
  std::unique_ptr<Transfer> transfer(new Transfer(context));
  transfer->easy_ = curl_easy_init();
  if (transfer->easy_ == nullptr) return absl::InternalError("curl_easy_init failed");
  return transfer;
}

// libcurl 7.88 keeps CURLOPT_COOKIEFILE's names in a list that
// curl_easy_reset forgets without freeing (one node leaked per request, seen
// by LeakSanitizer); a NULL COOKIEFILE frees it, and with the jar in the
// share it keeps the cookies.
static void ForgetCookieFiles(CURL* easy) {
  curl_easy_setopt(easy, CURLOPT_COOKIEFILE, static_cast<char*>(nullptr));
}

Transfer::~Transfer() {
  if (easy_ != nullptr) {
    ForgetCookieFiles(easy_);
    curl_easy_cleanup(easy_);
  }
  curl_slist_free_all(header_list_);
}

Transfer* Transfer::FromEasy(CURL* easy) {
  Transfer* transfer = nullptr;
  curl_easy_getinfo(easy, CURLINFO_PRIVATE, &transfer);
  return transfer;
}

// Setting the ~25 options of a request after curl_easy_reset costs ~1 us
// a request (a dozen string copies, a protocol list parsed); keeping them
// costs one CURLOPT_URL. Kept only when no state of libcurl 7.88 that the
// reset would clear can differ for the next request:
// - the handle holds no request's own options (FetchOptions::extras:
//   headers and credentials per host, hence also digest state: reset;
//   FetchRequest::headers, a recrawl's conditional GET);
// - the last transfer ended without error over HTTP/1.x: an error may have
//   left anything behind, and an HTTP/2 stream's retry closes its
//   connection only when the connection's last stream ends;
// - no connection was closed since the last Prepare: curl counts the
//   retries of a request on a reused connection that died in a counter only
//   curl_easy_reset clears (fixed in curl 8.17), and each such retry closes
//   that connection during the transfer. Without the reset, the sixth retry
//   over a handle's life would fail a request ("Connection died").
// The request's state (status, content type, sizes, times, redirect URL,
// auth methods picked) curl clears itself at the start of every transfer
// (Curl_pretransfer), reset or not.
bool Transfer::Prepare(FetchRequest request) {
  result_ = FetchResult{};
  result_.tag = request.tag;
  result_.url = std::move(request.url);
  max_body_ = request.max_body != 0 ? request.max_body : context_.options->max_body;
  request_headers_ = std::move(request.headers);
  check_type_ = !request.any_type && context_.options->accept_type != nullptr;
  result_.started_at = std::chrono::system_clock::now();
  cause_ = AbortCause{};
  error_buffer_[0] = '\0';
  started_ = std::chrono::steady_clock::now();
  // Checked here as well as by CURLOPT_PROTOCOLS_STR: curl guesses a scheme
  // for "example.org/x" and reads "mailto:a@b" as host "mailto", and neither
  // is something a crawler should fetch.
  if (!HasHttpScheme(result_.url)) {
    ForgetOptions();  // Finish reads no earlier transfer's info
    result_.error = std::string(kFetchScheme);
    return false;
  }
  CURLcode code = CURLE_OK;
  if (CanKeepOptions()) {
    code = curl_easy_setopt(easy_, CURLOPT_URL, result_.url.c_str());
  } else {
    code = ConfigureAfresh();
  }
  if (code == CURLE_OK) code = ConnectTo(request.connect_address);
  ended_cleanly_ = false;
  closed_before_ = context_.connections_closed->load(std::memory_order_relaxed);
  if (code != CURLE_OK) {
    result_.error = ErrorKind(code, cause_, error_buffer_);
    ForgetOptions();
    return false;
  }
  return true;
}

CURLcode Transfer::ConnectTo(const std::string& address) {
  // Set on every request, kept options or not: the list of the last one
  // must not stay on the handle. "::ADDR:PORT": any host, any port.
  connect_to_.reset();
  if (!address.empty()) {
    connect_to_.reset(curl_slist_append(nullptr, absl::StrCat("::", address).c_str()));
    if (connect_to_ == nullptr) return CURLE_OUT_OF_MEMORY;
  }
  return curl_easy_setopt(easy_, CURLOPT_CONNECT_TO, connect_to_.get());
}

bool Transfer::CanKeepOptions() const {
  return options_kept_ && ended_cleanly_ && request_headers_.empty() &&
         context_.connections_closed->load(std::memory_order_relaxed) == closed_before_ &&
         !MayMultiplex(*context_.options, result_.url);
}

CURLcode Transfer::ConfigureAfresh() {
  ForgetOptions();
  const CURLcode code = Configure();
  // Kept only as a plain HTTP/1.1 request's (CURLOPT_PIPEWAIT 0, no extras).
  options_kept_ = code == CURLE_OK && !context_.options->extras && request_headers_.empty() &&
                  !MayMultiplex(*context_.options, result_.url);
  return code;
}

void Transfer::ForgetOptions() {
  ForgetCookieFiles(easy_);
  curl_easy_reset(easy_);
  curl_slist_free_all(header_list_);
  header_list_ = nullptr;
  options_kept_ = false;
}

CURLcode Transfer::Configure() {
  const FetchOptions& o = *context_.options;
  CURL* e = easy_;
  // Each option stops the chain at the first failure; `code` carries it out.
  // curl_easy_setopt is variadic: every integer must already be a long.
  CURLcode code = CURLE_OK;
  auto set = [&](CURLoption option, auto value) {
    if (code == CURLE_OK) code = curl_easy_setopt(e, option, value);
  };
  set(CURLOPT_URL, result_.url.c_str());
  set(CURLOPT_PRIVATE, this);
  set(CURLOPT_ERRORBUFFER, error_buffer_);
  set(CURLOPT_NOSIGNAL, 1L);  // many threads: no SIGALRM-based DNS timeouts
  set(CURLOPT_SHARE, context_.share);
  set(CURLOPT_PROTOCOLS_STR, "http,https");
  set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  set(CURLOPT_FOLLOWLOCATION, 0L);  // the crawler follows, through the Sieve
  set(CURLOPT_USERAGENT, o.user_agent.c_str());
  if (o.cookies) set(CURLOPT_COOKIEFILE, "");  // "" turns the engine on; the jar is the share's
  set(CURLOPT_ACCEPT_ENCODING, "");            // every decoder curl has: gzip, deflate, br, zstd
  set(CURLOPT_CONNECTTIMEOUT_MS, ToMillis(o.connect_timeout_s));
  set(CURLOPT_TIMEOUT_MS, ToMillis(o.total_timeout_s));
  set(CURLOPT_LOW_SPEED_LIMIT, o.low_speed_bytes);
  set(CURLOPT_LOW_SPEED_TIME, std::max(1L, std::lround(std::ceil(o.low_speed_time_s))));
  set(CURLOPT_SSL_VERIFYPEER, o.verify_peer ? 1L : 0L);
  set(CURLOPT_SSL_VERIFYHOST, o.verify_peer ? 2L : 0L);
  if (!o.ca_file.empty()) set(CURLOPT_CAINFO, o.ca_file.c_str());
  if (!o.client_cert.empty()) set(CURLOPT_SSLCERT, o.client_cert.c_str());
  if (!o.client_key.empty()) set(CURLOPT_SSLKEY, o.client_key.c_str());
  if (context_.resolve != nullptr) set(CURLOPT_RESOLVE, context_.resolve);
  set(CURLOPT_HTTP_VERSION,
      static_cast<long>(o.http2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1));
  set(CURLOPT_PIPEWAIT, MayMultiplex(o, result_.url) ? 1L : 0L);
  set(CURLOPT_WRITEFUNCTION, &Transfer::OnBody);
  set(CURLOPT_WRITEDATA, this);
  set(CURLOPT_HEADERFUNCTION, &Transfer::OnHeader);
  set(CURLOPT_HEADERDATA, this);
  set(CURLOPT_OPENSOCKETFUNCTION, &Transfer::OnOpenSocket);
  set(CURLOPT_OPENSOCKETDATA, this);
  set(CURLOPT_CLOSESOCKETFUNCTION, &Transfer::OnCloseSocket);
  set(CURLOPT_CLOSESOCKETDATA, context_.connections_closed);
  if (code == CURLE_OK) code = ConfigureProxy();
  if (code == CURLE_OK) code = ConfigureRequestExtras();
  if (o.keep_request_headers) {
    // curl exposes the request it sent only to a debug callback, which it
    // calls only in verbose mode; the callback replaces the stderr output.
    set(CURLOPT_DEBUGFUNCTION, &Transfer::OnDebug);
    set(CURLOPT_DEBUGDATA, this);
    set(CURLOPT_VERBOSE, 1L);
  }
  return code;
}

CURLcode Transfer::ConfigureProxy() {
  const FetchOptions& o = *context_.options;
  if (!o.proxy.empty()) {
    CURLcode code = curl_easy_setopt(easy_, CURLOPT_PROXY, o.proxy.c_str());
    // An explicit proxy without the environment: no_proxy is not read either.
    if (code == CURLE_OK && !o.proxy_env) code = curl_easy_setopt(easy_, CURLOPT_NOPROXY, "");
    return code;
  }
  // Unset, curl reads http_proxy, https_proxy, all_proxy and no_proxy itself
  // (four getenv scans a request); "" means no proxy at all, and an empty
  // NOPROXY that no_proxy is not read either.
  if (o.proxy_env && context_.proxy_in_environment) return CURLE_OK;
  CURLcode code = curl_easy_setopt(easy_, CURLOPT_PROXY, "");
  if (code == CURLE_OK) code = curl_easy_setopt(easy_, CURLOPT_NOPROXY, "");
  return code;
}

bool ProxyInEnvironment() {
  for (const char* name :
       {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

CURLcode Transfer::ConfigureRequestExtras() {
  const FetchOptions& o = *context_.options;
  extras_ = o.extras ? o.extras(result_.url) : RequestExtras{};
  const std::vector<std::string>* lists[] = {&o.headers, &extras_.headers, &request_headers_};
  for (const std::vector<std::string>* list : lists) {
    for (const std::string& header : *list) {
      curl_slist* grown = curl_slist_append(header_list_, header.c_str());
      if (grown == nullptr) return CURLE_OUT_OF_MEMORY;
      header_list_ = grown;
    }
  }
  CURLcode code = CURLE_OK;
  if (header_list_ != nullptr) code = curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, header_list_);
  if (code != CURLE_OK || extras_.user.empty()) return code;
  const long method = extras_.auth == "digest" ? CURLAUTH_DIGEST
                      : extras_.auth == "any"  ? CURLAUTH_ANY
                                               : CURLAUTH_BASIC;
  code = curl_easy_setopt(easy_, CURLOPT_HTTPAUTH, method);
  if (code == CURLE_OK) code = curl_easy_setopt(easy_, CURLOPT_USERNAME, extras_.user.c_str());
  if (code == CURLE_OK) code = curl_easy_setopt(easy_, CURLOPT_PASSWORD, extras_.password.c_str());
  return code;
}

// curl hands over DECODED bytes here, so the cap also stops a gzip bomb
// whose wire size is tiny.
size_t Transfer::OnBody(char* data, size_t size, size_t count, void* self) {
  auto* t = static_cast<Transfer*>(self);
  const size_t length = size * count;
  if (t->TypeRefused(/*body_arrived=*/true)) {
    t->cause_.type_rejected = true;
    return 0;  // aborted before a byte is kept: the rest is never downloaded
  }
  const uint64_t room = t->max_body_ - t->result_.body.size();
  if (length > room) {
    t->result_.body.append(data, room);
    t->cause_.body_too_large = true;
    return 0;  // anything but `length` makes curl abort with CURLE_WRITE_ERROR
  }
  if (t->result_.body.empty()) t->ReserveForDeclaredLength();
  t->result_.body.append(data, length);
  return length;
}

// A body that grows by doubling passes 128 KiB on its way to ~100 KiB pages
// and then lives in a fresh mapping of its own (main.cc's mmap threshold),
// whose pages fault in one by one: ~10% of the CPU of a crawl of the Python
// docs (perf). Reserving the declared length once keeps such a body at its
// size. (With a Content-Encoding the length is the encoded one, and the
// string still grows past it.)
void Transfer::ReserveForDeclaredLength() {
  curl_off_t declared = -1;
  if (curl_easy_getinfo(easy_, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &declared) != CURLE_OK ||
      declared <= 0) {
    return;
  }
  result_.body.reserve(static_cast<size_t>(std::min<uint64_t>(declared, max_body_)));
}

// The first body bytes come after the final header block (never for a 1xx
// or a proxy's CONNECT answer), so status and Content-Type are the
// response's own here. Asked once per request; only 2xx answers are judged:
// a redirect's or an error page's body is not the content the filter is about.
// A response that ended without a body is judged only when it names a type
// (a 204, or an empty untyped 200, claims no content to refuse).
bool Transfer::TypeRefused(bool body_arrived) {
  if (!check_type_) return false;
  check_type_ = false;
  long status = 0;
  curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status >= 300) return false;
  const std::string content_type = InfoString(easy_, CURLINFO_CONTENT_TYPE);
  if (!body_arrived && content_type.empty()) return false;
  return !context_.options->accept_type(content_type);
}

// Called once per header line, status line included, CRLF kept.
size_t Transfer::OnHeader(char* data, size_t size, size_t count, void* self) {
  auto* t = static_cast<Transfer*>(self);
  const size_t length = size * count;
  const std::string_view line(data, length);
  // A new status line after a 1xx interim response starts the real block.
  if (line.starts_with("HTTP/")) t->result_.headers.clear();
  if (t->result_.headers.size() + length > kMaxHeaderBytes) {
    t->cause_.headers_too_large = true;
    return 0;
  }
  t->result_.headers.append(line);
  return length;
}

// curl passes the whole header block of a request in one call (HTTP/1) or
// the rendering of one HEADERS frame (HTTP/2). A block that follows a
// complete one is a new request on this handle (e.g. after a 100-continue
// refusal or an auth retry): the last request sent is the one answered.
int Transfer::OnDebug(CURL*, curl_infotype type, char* data, size_t size, void* self) {
  if (type != CURLINFO_HEADER_OUT) return 0;
  std::string& out = static_cast<Transfer*>(self)->result_.request_headers;
  if (out.ends_with("\r\n\r\n")) out.clear();
  if (out.size() + size <= kMaxHeaderBytes) out.append(data, size);
  return 0;
}

curl_socket_t Transfer::OnOpenSocket(void* self, curlsocktype, curl_sockaddr* address) {
  auto* t = static_cast<Transfer*>(self);
  if (t->context_.options->block_private && IsNonPublicAddress(&address->addr)) {
    t->cause_.private_address = true;
    return CURL_SOCKET_BAD;  // curl tries the next address, then fails to connect
  }
  const curl_socket_t socket_fd = ::socket(address->family, address->socktype, address->protocol);
  if (socket_fd != CURL_SOCKET_BAD) {
    t->context_.connections_opened->fetch_add(1, std::memory_order_relaxed);
  }
  return socket_fd;
}

// curl hands the counter of the handle that opened the connection, which
// may be gone by now: hence a counter of the Fetcher, not of a Transfer.
int Transfer::OnCloseSocket(void* closed_count, curl_socket_t socket) {
  static_cast<std::atomic<uint64_t>*>(closed_count)->fetch_add(1, std::memory_order_relaxed);
  return ::close(socket);
}

bool Transfer::OverHttp1() const {
  long version = 0;
  curl_easy_getinfo(easy_, CURLINFO_HTTP_VERSION, &version);
  return version == CURL_HTTP_VERSION_1_0 || version == CURL_HTTP_VERSION_1_1;
}

void Transfer::ReadInfo() {
  curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &result_.status);
  result_.content_type = InfoString(easy_, CURLINFO_CONTENT_TYPE);
  result_.location = InfoString(easy_, CURLINFO_REDIRECT_URL);
  result_.final_url = InfoString(easy_, CURLINFO_EFFECTIVE_URL);
  result_.remote_ip = InfoString(easy_, CURLINFO_PRIMARY_IP);
  curl_off_t body_wire = 0;
  long header_wire = 0;
  curl_easy_getinfo(easy_, CURLINFO_SIZE_DOWNLOAD_T, &body_wire);
  curl_easy_getinfo(easy_, CURLINFO_HEADER_SIZE, &header_wire);
  result_.wire_bytes = static_cast<uint64_t>(std::max<curl_off_t>(0, body_wire)) +
                       static_cast<uint64_t>(std::max(0L, header_wire));
}

// libcurl's clock starts when the multi handle takes the transfer, a little
// after `started_`; its pretransfer time is counted from there. Counted back
// from the end instead (total - pretransfer before it), the sending time
// never comes out earlier than it was, which would shorten politeness gaps.
double Transfer::SentMs(double fetch_ms) const {
  curl_off_t pretransfer_us = 0;
  curl_off_t total_us = 0;
  curl_easy_getinfo(easy_, CURLINFO_PRETRANSFER_TIME_T, &pretransfer_us);
  curl_easy_getinfo(easy_, CURLINFO_TOTAL_TIME_T, &total_us);
  if (pretransfer_us <= 0) return 0;  // no request went out
  const double after_sending_ms =
      static_cast<double>(std::max<curl_off_t>(0, total_us - pretransfer_us)) / 1000.0;
  return std::max(0.0, fetch_ms - after_sending_ms);
}

FetchResult Transfer::Finish(CURLcode code) {
  ReadInfo();
  // A refused type with no body at all: nothing to abort, the same verdict.
  if (code == CURLE_OK && result_.error.empty() && TypeRefused(/*body_arrived=*/false)) {
    result_.error = std::string(kFetchTypeRejected);
  }
  RedactCredentials(result_.request_headers);
  if (result_.error.empty()) result_.error = ErrorKind(code, cause_, error_buffer_);
  ended_cleanly_ = result_.error.empty() && OverHttp1();
  if (result_.final_url.empty()) result_.final_url = result_.url;
  result_.fetch_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started_)
          .count();
  result_.sent_ms = SentMs(result_.fetch_ms);
  return std::move(result_);
}

FetchResult Transfer::FinishUnstarted(CURLcode code) {
  ForgetOptions();
  return Finish(code);
}

FetchResult Transfer::Abandon() {
  result_.error = std::string(kFetchAborted);
  return Finish(CURLE_OK);
}

}  // namespace crawler::fetch_internal
