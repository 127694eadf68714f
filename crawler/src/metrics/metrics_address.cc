// ParseMetricsAddress: PORT, :PORT, HOST:PORT, [V6]:PORT.
#include <arpa/inet.h>

#include <charconv>
#include <string>

#include "absl/strings/str_cat.h"
#include "crawler/metrics_server.h"

namespace crawler {
namespace {

absl::Status BadMetricsAddress(std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("'", std::string(text), "': ", std::string(why),
                                                 " (PORT, HOST:PORT or [IPV6]:PORT)"));
}

bool ParsePortNumber(std::string_view text, int* port) {
  if (text.empty() || text.size() > 5) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *port);
  return ec == std::errc() && ptr == end && *port >= 0 && *port <= 65535;
}

}  // namespace

absl::StatusOr<MetricsAddress> ParseMetricsAddress(std::string_view text) {
  MetricsAddress address;
  std::string_view port = text;
  if (text.starts_with('[')) {  // [::1]:9100
    const size_t close = text.find(']');
    if (close == std::string_view::npos || text.substr(close + 1).size() < 2 ||
        text[close + 1] != ':') {
      return BadMetricsAddress(text, "an IPv6 address needs brackets and a port, [::1]:9100");
    }
    address.host = std::string(text.substr(1, close - 1));
    port = text.substr(close + 2);
  } else if (const size_t colon = text.rfind(':'); colon != std::string_view::npos) {
    if (text.find(':') != colon) {
      return BadMetricsAddress(text, "write an IPv6 address in brackets, [::1]:9100");
    }
    address.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
  }
  if (address.host.empty()) address.host = "127.0.0.1";  // never the network by default
  if (!ParsePortNumber(port, &address.port)) {
    return BadMetricsAddress(text, "the port is not a number in [0, 65535]");
  }
  return address;
}

bool IsLoopbackHost(std::string_view host) {
  if (host == "localhost") return true;
  const std::string text(host);
  in_addr v4{};
  if (::inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6{};
  return ::inet_pton(AF_INET6, text.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

}  // namespace crawler
