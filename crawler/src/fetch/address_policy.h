// Which resolved addresses a crawler of the open web must not connect to:
// loopback, private (RFC 1918), carrier-grade NAT, link-local (cloud metadata
// lives at 169.254.169.254), unique-local IPv6, multicast, and the unspecified
// and reserved ranges. Checked on the address curl is about to connect to, after
// DNS, so a public name that resolves to 10.0.0.1 is caught too.
#ifndef CRAWLER_SRC_FETCH_ADDRESS_POLICY_H_
#define CRAWLER_SRC_FETCH_ADDRESS_POLICY_H_

#include <sys/socket.h>

namespace crawler::fetch_internal {

// True when `address` (AF_INET or AF_INET6) is not a public unicast address.
// IPv6 forms that embed an IPv4 address (IPv4-mapped ::ffff:0:0/96, NAT64
// 64:ff9b::/96, 6to4 2002::/16) are judged by that address. Unknown families
// count as not public.
bool IsNonPublicAddress(const sockaddr* address);

}  // namespace crawler::fetch_internal

#endif  // CRAWLER_SRC_FETCH_ADDRESS_POLICY_H_
