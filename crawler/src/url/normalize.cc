#include "url/normalize.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "url/after_scheme.h"
#include "url/find_first_of.h"
#include "url/percent_encode.h"
#include "url/simple_resolve.h"

namespace crawler {
namespace url_internal {
namespace {

inline bool IsUnreserved(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

inline char ToUpperAscii(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c; }

// True when writing `decoded` (a hex digit) at `write` would follow a stray
// '%' already written: "%3" + '2' joins into a new escape "%32", and "%" +
// '4' makes "%4", which a raw hex digit after it, a later normalization or a
// server reading the path would take for part of an escape ("/%%41" must not
// become "/%A"). Such an escape stays encoded, so the key
// is a fixed point and the server receives what the page meant.
bool DecodingFormsEscape(const std::string& s, size_t write, unsigned char decoded) {
  if (!IsHexDigit(static_cast<char>(decoded))) return false;
  if (write >= 2 && s[write - 2] == '%' && IsHexDigit(s[write - 1])) return true;
  return write >= 1 && s[write - 1] == '%';
}

}  // namespace

void NormalizePercentEscapes(std::string& s, size_t from) {
  if (s.find('%', from) == std::string::npos) return;
  size_t write = from;
  for (size_t read = from; read < s.size(); ++read) {
    const char c = s[read];
    if (c == '%' && read + 2 < s.size() && IsHexDigit(s[read + 1]) && IsHexDigit(s[read + 2])) {
      const auto decoded =
          static_cast<unsigned char>(HexValue(s[read + 1]) * 16 + HexValue(s[read + 2]));
      if (IsUnreserved(decoded) && !DecodingFormsEscape(s, write, decoded)) {
        s[write++] = static_cast<char>(decoded);
      } else {
        s[write++] = '%';
        s[write++] = ToUpperAscii(s[read + 1]);
        s[write++] = ToUpperAscii(s[read + 2]);
      }
      read += 2;
    } else {
      s[write++] = c;
    }
  }
  s.resize(write);
}

absl::Status NormalizeHttpHref(std::string& href, const NormalizeOptions& options) {
  EraseUserinfo(href);  // in place: no allocation for the usual URL without one
  return NormalizeHttpHrefWithoutUserinfo(href, options);
}

absl::Status NormalizeHttpHrefWithoutUserinfo(std::string& href, const NormalizeOptions& options) {
  const size_t scheme_end = href.find(':');
  NormalizePercentEscapes(href, scheme_end == std::string::npos ? 0 : scheme_end + 1);
  // A stripped path may have become a dot segment ("/a/.;jsessionid=1" is
  // "/a/."), which parsing the key would resolve: the key must be a fixed
  // point, so it is parsed and normalized again, until nothing is stripped
  // (each round removes at least one ";jsessionid=" or parameter; capped all
  // the same, since the loop's end should not rest on that argument alone).
  for (int round = 0; round < 8 && options.strip_session_ids && StripSessionIds(href); ++round) {
    absl::StatusOr<Url> reparsed = Url::Parse(href);
    if (!reparsed.ok()) break;
    href = reparsed->href();
    NormalizePercentEscapes(href, scheme_end == std::string::npos ? 0 : scheme_end + 1);
  }
  if (options.sort_query) SortQuery(href);
  if (href.size() > options.max_length) {
    return absl::InvalidArgumentError(absl::StrCat(
        "URL is ", href.size(), " bytes, longer than the limit of ", options.max_length));
  }
  return absl::OkStatus();
}

}  // namespace url_internal

namespace {

// Whether the serialization of `url` (an http(s) URL, so it has a host)
// holds "userinfo@": its host starts after "scheme://" otherwise. No host
// holds an '@' (a forbidden host code point), so without userinfo
// EraseUserinfo has nothing to find and its scan is skipped.
bool HasUserinfo(const Url& url) {
  return static_cast<size_t>(url.host().data() - url.href().data()) != url.scheme().size() + 3;
}

// NormalizeHttpHref of `href`, the serialization of a parsed http(s) URL.
absl::Status NormalizeParsedHref(std::string& href, bool userinfo,
                                 const NormalizeOptions& options) {
  return userinfo ? url_internal::NormalizeHttpHref(href, options)
                  : url_internal::NormalizeHttpHrefWithoutUserinfo(href, options);
}

}  // namespace

void EraseUserinfo(std::string& href) {
  // The serializer percent-encodes '@' inside userinfo, so the authority's
  // last '@' ends it.
  const size_t host = AfterScheme(href);
  if (host == std::string::npos) return;
  const size_t authority_end = std::min(FindFirstOf(href, "/?#", host), href.size());
  const size_t at = href.rfind('@', authority_end);
  if (at == std::string::npos || at < host || at >= authority_end) return;
  href.erase(host, at + 1 - host);
}

std::string WithoutUserinfo(std::string_view href) {
  std::string out(href);
  EraseUserinfo(out);
  return out;
}

absl::StatusOr<std::string> NormalizeForSeen(const Url& url, const NormalizeOptions& options) {
  if (!url.IsHttp()) {
    return absl::InvalidArgumentError("scheme '" + std::string(url.scheme()) + "' is not crawled");
  }
  std::string href(url.href(), 0,
                   url.href().size() - (url.has_fragment() ? url.fragment().size() + 1 : 0));
  if (absl::Status status = NormalizeParsedHref(href, HasUserinfo(url), options); !status.ok()) {
    return status;
  }
  return href;
}

absl::StatusOr<std::string> ResolveLink(const Url& base, std::string_view href,
                                        const NormalizeOptions& options) {
  if (std::optional<std::string> simple = url_internal::ResolveSimpleLink(base, href)) {
    // No userinfo: ResolveSimpleLink takes none from the base, nor any '@'.
    if (absl::Status status = url_internal::NormalizeHttpHrefWithoutUserinfo(*simple, options);
        !status.ok()) {
      return status;
    }
    return *std::move(simple);
  }
  absl::StatusOr<Url> url = Url::Parse(href, &base);
  if (!url.ok()) {
    return absl::InvalidArgumentError("unparsable URL: " + std::string(url.status().message()));
  }
  if (!url->IsHttp()) {
    return absl::InvalidArgumentError("scheme '" + std::string(url->scheme()) + "' is not crawled");
  }
  const bool userinfo = HasUserinfo(*url);  // before href_ is moved out
  std::string result = std::move(url->href_);
  if (url->fragment_start_ != Url::kNone) result.resize(url->fragment_start_);
  if (absl::Status status = NormalizeParsedHref(result, userinfo, options); !status.ok()) {
    return status;
  }
  return result;
}

}  // namespace crawler
