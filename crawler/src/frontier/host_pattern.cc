// [[hosts]] patterns: a glob on the host, "host:port" or the whole authority,
// chosen by what the pattern itself contains (see polite_policy.h).
#include <string>
#include <string_view>

#include "absl/strings/ascii.h"
#include "crawler/polite_policy.h"

namespace crawler {
namespace {

// Classic two-pointer glob with one backtrack point: linear in practice,
// O(pattern x text) at worst, and patterns are short.
bool GlobMatches(std::string_view pattern, std::string_view text) {
  size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.size() && absl::ascii_tolower(static_cast<unsigned char>(pattern[p])) ==
                                         absl::ascii_tolower(static_cast<unsigned char>(text[t]))) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

struct AuthorityParts {
  std::string_view scheme;
  std::string_view host;
  std::string_view port;  // "" when the authority has none
};

AuthorityParts Split(std::string_view authority) {
  AuthorityParts parts;
  std::string_view rest = authority;
  if (const size_t sep = rest.find("://"); sep != std::string_view::npos) {
    parts.scheme = rest.substr(0, sep);
    rest.remove_prefix(sep + 3);
  }
  // The port follows the last ':' unless that ':' is inside "[v6]".
  const size_t colon = rest.rfind(':');
  const size_t bracket = rest.rfind(']');
  if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket)) {
    parts.host = rest.substr(0, colon);
    parts.port = rest.substr(colon + 1);
  } else {
    parts.host = rest;
  }
  return parts;
}

// A ':' outside "[v6]" brackets means the pattern names a port.
bool HasPort(std::string_view pattern) {
  const size_t colon = pattern.rfind(':');
  const size_t bracket = pattern.rfind(']');
  return colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket);
}

}  // namespace

bool HostPatternMatches(std::string_view pattern, std::string_view authority) {
  if (pattern.find("://") != std::string_view::npos) return GlobMatches(pattern, authority);
  const AuthorityParts parts = Split(authority);
  if (!HasPort(pattern)) return GlobMatches(pattern, parts.host);
  std::string_view port = parts.port;
  if (port.empty()) port = parts.scheme == "https" ? "443" : "80";
  std::string host_port(parts.host);
  host_port.append(":").append(port);
  return GlobMatches(pattern, host_port);
}

}  // namespace crawler
