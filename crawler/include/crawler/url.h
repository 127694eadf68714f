// crawler/url.h: absolute URLs as a browser parses them, and the crawler's
// normalization of them for the seen-check.
//
// `Url` is an absolute URL parsed and serialized by the WHATWG URL Standard
// (https://url.spec.whatwg.org/): backslashes, tab/newline stripping, dot
// segments, default ports, IDNA hosts to punycode (UTS #46, nontransitional),
// IPv4/IPv6 hosts and percent-encoding all behave as in a browser. The
// accessors are views into the one serialized string, so a Url is cheap to
// read and to copy around as a value.
//
// Example:
//   absl::StatusOr<crawler::Url> page = crawler::Url::Parse("HTTP://Example.COM:80/a/b?x#y");
//   // page->href() == "http://example.com/a/b?x#y", page->port() == -1,
//   // page->Authority() == "http://example.com:80"
//   absl::StatusOr<std::string> next = crawler::ResolveLink(*page, "../c%7e?q#frag");
//   // *next == "http://example.com/c~?q"
//
// Threading: `Url` is an immutable value; all functions here are safe to call
// concurrently from any thread.
#ifndef CRAWLER_URL_H_
#define CRAWLER_URL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace crawler {

struct NormalizeOptions;

class Url {
 public:
  // Parses `input` (UTF-8) against `base` (may be null) with the WHATWG basic
  // URL parser. Fails with InvalidArgumentError saying why (e.g. "invalid
  // port", "invalid host", "relative URL without a base"). Never crashes and
  // never reads out of bounds, whatever the bytes.
  static absl::StatusOr<Url> Parse(std::string_view input, const Url* base = nullptr);

  // The full WHATWG serialization ("http://example.com/a?b#c").
  const std::string& href() const { return href_; }
  // Lower-case scheme without the colon: "http".
  std::string_view scheme() const { return Slice(0, scheme_end_); }
  // Serialized host: "example.com", "xn--bcher-kva.example", "10.0.0.1",
  // "[::1]"; empty when the URL has no host (or an empty one, as file:///).
  std::string_view host() const { return Slice(host_start_, host_end_); }
  // The explicit port, or -1 when absent or equal to the scheme's default.
  int port() const { return port_; }
  // port(), or the scheme's default (http 80, https 443, ws 80, wss 443,
  // ftp 21); -1 when neither exists.
  int EffectivePort() const;
  // Path as serialized ("/a/b"), query without '?', fragment without '#'.
  std::string_view path() const { return Slice(path_start_, path_end()); }
  std::string_view query() const;
  std::string_view fragment() const;
  bool has_query() const { return query_start_ != kNone; }
  bool has_fragment() const { return fragment_start_ != kNone; }
  // True when the URL has a host component (it was written "scheme://...").
  bool has_host() const { return has_host_; }
  // True for URLs like "mailto:x" whose path is an opaque string.
  bool has_opaque_path() const { return opaque_path_; }
  // "scheme://host:port" with the effective port, e.g. "https://example.com:443":
  // the key for politeness and robots.txt. For a URL without a default or
  // explicit port the ":port" part is left out.
  std::string Authority() const;
  // True for the schemes a crawler fetches: http and https.
  bool IsHttp() const;

  friend bool operator==(const Url& a, const Url& b) { return a.href_ == b.href_; }

 private:
  friend class UrlBuilder;  // src/url: the parser fills in the fields below.
  // Reuses the parsed string as its result (one allocation per link).
  friend absl::StatusOr<std::string> ResolveLink(const Url& base, std::string_view href,
                                                 const NormalizeOptions& options);
  static constexpr uint32_t kNone = UINT32_MAX;

  Url() = default;
  std::string_view Slice(uint32_t begin, uint32_t end) const {
    return std::string_view(href_).substr(begin, end - begin);
  }
  uint32_t path_end() const;

  // href_ = scheme ":" ["//" [userinfo "@"] host [":" port]] path ["?" query] ["#" fragment].
  // A URL without host whose path starts with "//" is serialized with "/." in
  // front of the path (WHATWG); path_start_ points after it.
  std::string href_;
  uint32_t scheme_end_ = 0;  // index of the ':' after the scheme
  uint32_t host_start_ = 0;  // host(), empty range when there is none
  uint32_t host_end_ = 0;
  uint32_t authority_end_ = 0;  // end of "//userinfo@host:port" (== scheme_end_ + 1 if none)
  uint32_t path_start_ = 0;
  uint32_t query_start_ = kNone;     // index of '?', or kNone
  uint32_t fragment_start_ = kNone;  // index of '#', or kNone
  int port_ = -1;
  bool has_host_ = false;
  bool opaque_path_ = false;
};

// Options of the crawler's normalization. Defaults are the exact WHATWG-based
// normalization the seen-check needs; everything more aggressive is opt-in
// because it can merge URLs that a server treats as different pages.
struct NormalizeOptions {
  // URLs whose normalized form is longer than this are rejected: they are
  // nearly always traps (calendars, session loops) and browsers and servers
  // commonly cap around 2 KB (the de-facto limit of older IE and many CDNs).
  size_t max_length = 2048;
  // Sort the query's '&'-separated parameters (stable, by the raw bytes).
  // Off: "?a=1&b=2" and "?b=2&a=1" may be different resources.
  bool sort_query = false;
  // Drop query parameters that are well-known session ids (jsessionid,
  // phpsessid, sid, sessionid, aspsessionid*, and ";jsessionid=" in the path).
  // Off: some sites key real content on such names.
  bool strip_session_ids = false;
};

// The seen-check key of an http(s) URL: its WHATWG serialization with the
// fragment and any userinfo ("user:pass@") removed, percent-escapes of
// unreserved characters (ALPHA DIGIT - . _ ~) decoded and the hex digits of
// the remaining escapes uppercased;
// plus the opt-in rewrites of `options`. Errors: the URL is not http(s)
// ("scheme 'mailto' is not crawled") or the result is longer than
// options.max_length.
absl::StatusOr<std::string> NormalizeForSeen(const Url& url, const NormalizeOptions& options = {});

// `href` ("scheme://[userinfo@]host...") without "userinfo@": credentials a
// page or a redirect wrote are neither queued, sent nor recorded. Anything
// without "://" comes back unchanged.
std::string WithoutUserinfo(std::string_view href);
// WithoutUserinfo in place: `href` loses its userinfo, if any (no allocation).
void EraseUserinfo(std::string& href);

// Resolves `href` (a link as written in a page) against `base` as a browser
// does and returns what the crawler would enqueue (NormalizeForSeen of the
// result), or InvalidArgumentError saying why not: unparsable, non-http(s)
// scheme, longer than options.max_length.
absl::StatusOr<std::string> ResolveLink(const Url& base, std::string_view href,
                                        const NormalizeOptions& options = {});

}  // namespace crawler

#endif  // CRAWLER_URL_H_
