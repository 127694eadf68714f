#include "fetch/address_policy.h"

#include <netinet/in.h>

#include <cstdint>
#include <cstring>

namespace crawler::fetch_internal {
namespace {

// IPv4 in host byte order.
bool IsNonPublicV4(uint32_t a) {
  auto in = [a](uint32_t net, int bits) {
    const uint32_t mask = bits == 0 ? 0 : ~uint32_t{0} << (32 - bits);
    return (a & mask) == net;
  };
  return in(0x00000000, 8)      // 0.0.0.0/8 "this network"
         || in(0x0A000000, 8)   // 10/8 private
         || in(0x64400000, 10)  // 100.64/10 carrier-grade NAT
         || in(0x7F000000, 8)   // 127/8 loopback
         || in(0xA9FE0000, 16)  // 169.254/16 link-local, cloud metadata
         || in(0xAC100000, 12)  // 172.16/12 private
         || in(0xC0000000, 24)  // 192.0.0/24 IETF protocol assignments
         || in(0xC0A80000, 16)  // 192.168/16 private
         || in(0xC6120000, 15)  // 198.18/15 benchmarking
         || in(0xE0000000, 4)   // 224/4 multicast
         || in(0xF0000000, 4);  // 240/4 reserved, broadcast
}

uint32_t V4At(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
}

bool IsNonPublicV6(const uint8_t (&b)[16]) {
  // Prefixes that carry an IPv4 address: judge the address they carry, or
  // "::ffff:10.0.0.1" (or a NAT64 / 6to4 form of it) would slip through.
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
  static constexpr uint8_t kNat64[12] = {0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0};
  if (std::memcmp(b, kMapped, 12) == 0 || std::memcmp(b, kNat64, 12) == 0) {
    return IsNonPublicV4(V4At(b + 12));
  }
  if (b[0] == 0x20 && b[1] == 0x02) return IsNonPublicV4(V4At(b + 2));  // 2002::/16 6to4
  bool first_fifteen_zero = true;
  for (int i = 0; i < 15; ++i) first_fifteen_zero = first_fifteen_zero && b[i] == 0;
  if (first_fifteen_zero && (b[15] == 0 || b[15] == 1)) return true;  // :: and ::1
  return (b[0] & 0xFE) == 0xFC                                        // fc00::/7 unique local
         || (b[0] == 0xFE && (b[1] & 0x80) == 0x80)  // fe80::/10 link-local, fec0::/10 site-local
         || b[0] == 0xFF;                            // ff00::/8 multicast
}

}  // namespace

bool IsNonPublicAddress(const sockaddr* address) {
  if (address->sa_family == AF_INET) {
    sockaddr_in v4;
    std::memcpy(&v4, address, sizeof v4);
    return IsNonPublicV4(ntohl(v4.sin_addr.s_addr));
  }
  if (address->sa_family == AF_INET6) {
    sockaddr_in6 v6;
    std::memcpy(&v6, address, sizeof v6);
    uint8_t bytes[16];
    std::memcpy(bytes, &v6.sin6_addr, sizeof bytes);
    return IsNonPublicV6(bytes);
  }
  return true;
}

}  // namespace crawler::fetch_internal
