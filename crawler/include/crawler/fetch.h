// Fetcher: downloads URLs over HTTP(S) with libcurl's multi interface, a few
// threads each driving many concurrent transfers, so that two cores keep
// hundreds of connections busy.
//
// What it does and does not do:
//   - Only http and https. Any other scheme ends with error "scheme".
//   - Redirects are NOT followed: a 3xx result carries the status and the
//     resolved absolute `location`; the crawler pushes that target through the
//     Sieve like any link (so a redirect to a seen URL is not fetched again) and
//     counts hops itself.
//   - Connections are reused: one connection cache per fetcher thread, and a
//     host's requests go to the same thread while it has free slots; DNS and
//     TLS sessions are shared by all threads. HTTP/2 when the server offers it
//     over TLS. gzip, deflate, brotli and zstd bodies are decoded.
//   - The body cap counts DECODED bytes, so a gzip bomb is cut short: the
//     transfer is aborted, error "body_too_large", the truncated body is kept.
//   - TLS peers are verified.
//   - It does not parse: `IsHtmlContentType` tells the caller which results are
//     worth handing to the link extractor.
//
// Example:
//   auto fetcher = crawler::Fetcher::Create(options, [&](crawler::FetchResult&& r) {
//     if (!r.error.empty()) return Record(r);            // a failed fetch
//     if (!r.location.empty()) return Enqueue(r.location);  // a redirect
//     if (crawler::IsHtmlContentType(r.content_type)) Parse(r.body);
//   });
//   if (!fetcher.ok()) return fetcher.status();
//   (*fetcher)->Submit({.url = "https://example.org/", .tag = 1});
//   ...
//   (*fetcher)->Shutdown(std::chrono::seconds(5));
//
// Threading: Submit, InFlight, Stats and Shutdown are safe to call from any
// thread. The callback runs on the fetcher threads, possibly concurrently with
// itself; it may call Submit but must not call Shutdown or destroy the Fetcher.
#ifndef CRAWLER_FETCH_H_
#define CRAWLER_FETCH_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace crawler {

// What a request to one URL adds to the request every URL gets: the
// [[hosts]] headers and credentials of the URL's host (FetchOptions::extras).
// The password is handed to curl only; nothing here is ever logged.
struct RequestExtras {
  std::vector<std::string> headers;  // "Name: value", after FetchOptions::headers
  std::string user;                  // empty: no HTTP authentication
  std::string password;
  // "basic", "digest" or "any" (curl picks what the server's 401 offers; one
  // extra round trip). Basic sends the password in clear text over http.
  std::string auth = "basic";
};

struct FetchOptions {
  // Fetcher threads, each with its own curl multi handle and connection cache.
  // One thread drives hundreds of transfers; a second one helps with TLS and
  // decompression on a 2-core machine. Must be >= 1.
  int threads = 2;
  // Concurrent transfers across all threads (--connections), split evenly
  // between threads. Submissions beyond it wait in a queue. Must be >= threads.
  int max_transfers = 256;
  std::string user_agent = "crawl/0.1 (+https://example.invalid/crawl)";
  // Time to establish TCP (and TLS) before giving up: error "timeout".
  double connect_timeout_s = 10;
  // Whole transfer, connect included: error "timeout". A slow-drip server is
  // also cut by the low-speed rule: fewer than `low_speed_bytes` per second
  // for `low_speed_time_s` seconds.
  double total_timeout_s = 30;
  long low_speed_bytes = 100;
  double low_speed_time_s = 15;
  // Body bytes after decoding; beyond it the transfer is aborted with error
  // "body_too_large" and the first `max_body` bytes are kept.
  uint64_t max_body = 10 << 20;
  // Negotiate HTTP/2 over TLS (ALPN); plain http stays HTTP/1.1.
  bool http2 = true;
  // Refuse to connect to loopback, private, link-local and unique-local
  // addresses (checked on the resolved address, so DNS cannot smuggle them
  // in): error "private_address". Off by default because tests run on
  // 127.0.0.1; a crawl of the open web should turn it on.
  bool block_private = false;
  // Extra CA bundle (PEM) to trust, e.g. a test's self-signed certificate.
  // Empty: the system's default bundle.
  std::string ca_file;
  // Verify the server's certificate and name (curl's VERIFYPEER/VERIFYHOST).
  // false: --no-check-certificate, anyone on the path can read and change
  // what is fetched.
  bool verify_peer = true;
  // A client certificate (PEM) and its key for servers that ask for one;
  // empty: none. The key may be in client_cert's file (client_key empty).
  std::string client_cert;
  std::string client_key;
  // curl's CURLOPT_RESOLVE entries, "HOST:PORT:ADDRESS[,ADDRESS...]": HOST
  // at PORT connects to ADDRESS instead of what DNS says (the URL, the Host
  // header and TLS's name stay HOST's). Checked by Fetcher::Create.
  std::vector<std::string> resolve;
  // Fill FetchResult::request_headers (for WARC request records). Off by
  // default: it turns on curl's debug callback, a call per chunk received.
  bool keep_request_headers = false;
  // Proxy for every request: "http://HOST:PORT", "https://...", "socks5://...",
  // "socks5h://..." (the proxy resolves names), with optional USER:PASS@.
  // Empty: the environment decides when proxy_env (http_proxy, https_proxy,
  // all_proxy, no_proxy, as curl reads them), else no proxy. Note that
  // block_private then checks the proxy's address, not the site's.
  std::string proxy;
  bool proxy_env = true;
  // Extra request headers on every request, "Name: value"; a header named
  // like one curl sends (User-Agent, Accept) replaces it; "Name:" removes it.
  std::vector<std::string> headers;
  // One cookie jar for the Fetcher's transfers (a curl share): cookies a
  // server sets are sent back on later requests, as a browser would. Bound:
  // what servers set; curl keeps at most 50 cookies per domain it stores.
  bool cookies = true;
  // Netscape cookie file (curl's and wget's format) read into the jar at
  // Create; empty = none. Ignored when !cookies.
  std::string load_cookies;
  // Where Shutdown writes the jar in the same format; empty = nowhere.
  std::string save_cookies;
  // Cookies a checkpoint kept (CookieJar's text, Netscape lines), added to
  // the jar at Create after load_cookies. Ignored when !cookies.
  std::string restored_cookies;
  // Per-URL additions, or empty for none. Called on a fetcher thread for each
  // request, possibly concurrently: must be thread-safe and fast.
  std::function<RequestExtras(const std::string& url)> extras;
  // Whether a 2xx response's body is wanted, from its Content-Type header
  // value ("" when absent); null = every type is (--accept-type,
  // --reject-type: MediaTypeFilter::Accepts). A refused response is aborted
  // when its first body bytes arrive, before any is kept: error
  // "type_rejected", status and content_type set, body empty. A response
  // without a body is judged only when it names a type (a 204 is not). Called
  // on fetcher threads, possibly concurrently: must be thread-safe and fast.
  std::function<bool(std::string_view content_type)> accept_type;
};

struct FetchRequest {
  std::string url;
  uint64_t tag = 0;  // the caller's id, returned untouched in FetchResult::tag
  // This request's body cap instead of FetchOptions::max_body; 0 = that one.
  // robots.txt has its own (RFC 9309 2.5 asks for at least 500 KiB, whatever
  // --max-body says for pages).
  uint64_t max_body = 0;
  // Not subject to FetchOptions::accept_type: robots.txt and sitemaps, which
  // the crawl reads whatever the type filter says about pages.
  bool any_type = false;
  // This request's own headers, "Name: value", after FetchOptions::headers
  // and the extras: a recrawl's If-None-Match / If-Modified-Since.
  std::vector<std::string> headers = {};
  // Connect to this server, "ADDR:PORT" (an IPv6 ADDR in brackets), instead
  // of what the URL's name resolves to (CURLOPT_CONNECT_TO; the Host header
  // and TLS's name stay the URL's): the server the crawl's per-IP limits
  // counted this request against. "" = resolve the name as usual.
  std::string connect_address = {};
};

// Error kinds in FetchResult::error. Anything else is "other: <curl message>".
inline constexpr std::string_view kFetchTimeout = "timeout";  // connect, total or low-speed
inline constexpr std::string_view kFetchConnect = "connect";  // refused / unreachable
inline constexpr std::string_view kFetchDns = "dns";          // name did not resolve
inline constexpr std::string_view kFetchReset = "reset";      // connection dropped mid-way
inline constexpr std::string_view kFetchTls = "tls";          // handshake or verification
inline constexpr std::string_view kFetchBodyTooLarge = "body_too_large";
// More than 256 KiB of response headers: a server that never ends its header
// block would otherwise grow memory until the total timeout.
inline constexpr std::string_view kFetchHeadersTooLarge = "headers_too_large";
inline constexpr std::string_view kFetchScheme = "scheme";  // not http or https
// The server's answer is not HTTP: a garbage status line, an HTTP/0.9 or
// unknown HTTP/1.x version, a malformed header block.
inline constexpr std::string_view kFetchBadResponse = "bad_response";
inline constexpr std::string_view kFetchPrivateAddress = "private_address";
inline constexpr std::string_view kFetchHttp2 = "http2";      // HTTP/2 framing error
inline constexpr std::string_view kFetchAborted = "aborted";  // abandoned by Shutdown
// The response's Content-Type was refused by FetchOptions::accept_type: the
// transfer was aborted after the headers, its body not downloaded.
inline constexpr std::string_view kFetchTypeRejected = "type_rejected";

struct FetchResult {
  uint64_t tag = 0;
  std::string url;           // as submitted
  std::string final_url;     // as curl last used it (equals `url` since redirects are not followed)
  long status = 0;           // HTTP status; 0 when no response arrived
  std::string content_type;  // the Content-Type header value, as sent
  std::string location;      // resolved absolute redirect target (3xx with Location), else empty
  std::string headers;       // raw response header block as received (status line included)
  // Raw request header block as curl sent it (request line included, ending
  // with the empty line), when FetchOptions::keep_request_headers; else empty.
  // Over HTTP/2 it is curl's HTTP/1-style rendering of the HEADERS frame.
  std::string request_headers;
  std::string body;         // decoded body (truncated at max_body)
  std::string remote_ip;    // address actually connected to, empty if none
  uint64_t wire_bytes = 0;  // header + body bytes as received (before decoding)
  std::chrono::system_clock::time_point started_at;  // when the transfer started (not queued)
  double fetch_ms = 0;                               // start to completion
  // Start to the request going out (libcurl's pretransfer time: connect and
  // TLS done); 0 when no request was sent.
  double sent_ms = 0;
  std::string error;  // empty when OK; else one of the kinds above
};

// True for the media types we parse for links: text/html and
// application/xhtml+xml, parameters (charset) and case ignored.
bool IsHtmlContentType(std::string_view content_type);

// Counters since Create; a snapshot, each field read atomically.
struct FetchStats {
  uint64_t submitted = 0;
  uint64_t completed = 0;   // callbacks returned, errors included
  uint64_t failed = 0;      // completed with a non-empty error
  uint64_t body_bytes = 0;  // decoded
  uint64_t wire_bytes = 0;
  uint64_t connections_opened = 0;  // new TCP connections; completed - this ~ reuse
  size_t in_flight = 0;
  size_t queued = 0;  // submitted but not yet started (waiting for a transfer slot)
};

class Fetcher {
 public:
  using Callback = std::function<void(FetchResult&&)>;

  // Validates options (threads >= 1, max_transfers >= threads, positive
  // timeouts, max_body > 0, readable ca_file) and starts the threads.
  static absl::StatusOr<std::unique_ptr<Fetcher>> Create(const FetchOptions& options,
                                                         Callback on_done);

  // Shuts down with no grace if Shutdown was not called.
  ~Fetcher();
  Fetcher(const Fetcher&) = delete;
  Fetcher& operator=(const Fetcher&) = delete;

  // Queues a fetch; never blocks on the network. The callback runs exactly once
  // for every accepted request. False (and no callback) once Shutdown began.
  // There is no queue bound: the caller limits what it submits using InFlight().
  bool Submit(FetchRequest request);

  // Submitted requests whose callback has not yet returned.
  size_t InFlight() const;

  FetchStats Stats() const;

  // The jar's cookies as Netscape cookie-file lines ("domain\tflag\tpath\t
  // secure\texpiry\tname\tvalue\n", session cookies included), for a
  // checkpoint; "" with cookies off or none set. Safe from any thread, also
  // while transfers run (the share's cookie lock).
  std::string CookieJar() const;

  // Stops taking work; requests still queued get error "aborted" at once;
  // running transfers get `grace` to finish, then are abandoned with error
  // "aborted". Returns after every callback ran and the threads are joined.
  // Idempotent. Not from inside the callback.
  void Shutdown(std::chrono::milliseconds grace);

 private:
  class Impl;
  explicit Fetcher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace crawler

#endif  // CRAWLER_FETCH_H_
