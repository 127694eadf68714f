// SplitUrl: the authority, its host, the path and whether a query follows,
// in one pass over the authority and two memchr over the rest.
#include "crawler/url_parts.h"

#include <array>
#include <cstring>

#include "url/after_scheme.h"

namespace crawler {
namespace {

// What a byte of the authority is to the split: the authority's end ('/',
// '?', '#'), the end of userinfo ('@'), the start of a port (':'), the end
// of an IPv6 host (']'), or nothing.
enum AuthorityByte : unsigned char { kPlain, kEnd, kAt, kColon, kBracket };

constexpr std::array<unsigned char, 256> kAuthorityBytes = [] {
  std::array<unsigned char, 256> table{};
  table['/'] = kEnd;
  table['?'] = kEnd;
  table['#'] = kEnd;
  table['@'] = kAt;
  table[':'] = kColon;
  table[']'] = kBracket;
  return table;
}();

// The first of `c` in url[from, to), or `to`.
size_t FindBefore(std::string_view url, size_t from, size_t to, char c) {
  const void* at = std::memchr(url.data() + from, c, to - from);
  return at == nullptr ? to : static_cast<const char*>(at) - url.data();
}

}  // namespace

UrlParts SplitUrl(std::string_view url) {
  UrlParts parts;
  const size_t start = AfterScheme(url);
  if (start == std::string_view::npos) return parts;
  // One pass to the authority's end, keeping where its host starts (after
  // the last '@') and the first ':' and ']' after that.
  size_t end = start;
  size_t host = start;
  size_t colon = std::string_view::npos;
  size_t bracket = std::string_view::npos;
  for (; end < url.size(); ++end) {
    const unsigned char kind = kAuthorityBytes[static_cast<unsigned char>(url[end])];
    if (kind == kPlain) continue;
    if (kind == kEnd) break;
    if (kind == kAt) {
      host = end + 1;
      colon = bracket = std::string_view::npos;
    } else if (kind == kColon) {
      if (colon == std::string_view::npos) colon = end;
    } else if (bracket == std::string_view::npos) {
      bracket = end;
    }
  }
  parts.authority = url.substr(start, end - start);
  // "[v6]:port" -> "[v6]" (nothing when the ']' is missing), else up to the
  // port: HostOfAuthority's rule (crawler/link_filter.h).
  if (host < end && url[host] == '[') {
    parts.host = url.substr(host, bracket == std::string_view::npos ? 0 : bracket + 1 - host);
  } else {
    parts.host = url.substr(host, (colon == std::string_view::npos ? end : colon) - host);
  }
  if (end == url.size()) return parts;
  const size_t fragment = FindBefore(url, end, url.size(), '#');
  const size_t query = FindBefore(url, end, fragment, '?');
  parts.path = url.substr(end, query - end);
  parts.has_query = query < fragment;
  return parts;
}

}  // namespace crawler
