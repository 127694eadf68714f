// The WHATWG IPv6 parser and serializer.
#include <utility>

#include "absl/strings/ascii.h"
#include "url/ip_address.h"
#include "url/percent_encode.h"

namespace crawler::url_internal {

// A direct transcription of the Standard's IPv6 parser: `piece` walks the
// eight 16-bit pieces, `compress` remembers where "::" was.
std::optional<Ipv6Address> ParseIpv6(std::string_view input) {
  Ipv6Address address{};
  int piece = 0;
  int compress = -1;
  size_t i = 0;
  const size_t n = input.size();
  auto at = [&](size_t k) -> char { return k < n ? input[k] : '\0'; };
  if (at(0) == ':') {
    if (at(1) != ':') return std::nullopt;
    i = 2;
    compress = ++piece;
  }
  while (i < n) {
    if (piece == 8) return std::nullopt;
    if (input[i] == ':') {
      if (compress != -1) return std::nullopt;
      ++i;
      compress = ++piece;
      continue;
    }
    unsigned value = 0;
    int length = 0;
    while (length < 4 && i < n && IsHexDigit(static_cast<unsigned char>(input[i]))) {
      value = value * 16 + HexValue(static_cast<unsigned char>(input[i]));
      ++i;
      ++length;
    }
    if (at(i) == '.') {
      // Embedded IPv4: rewind over the digits just read and parse them as
      // up to four decimal bytes filling two pieces.
      if (length == 0) return std::nullopt;
      i -= length;
      if (piece > 6) return std::nullopt;
      int numbers_seen = 0;
      while (i < n) {
        int ipv4_piece = -1;
        if (numbers_seen > 0) {
          if (input[i] == '.' && numbers_seen < 4) {
            ++i;
          } else {
            return std::nullopt;
          }
        }
        if (!absl::ascii_isdigit(at(i))) return std::nullopt;
        while (absl::ascii_isdigit(at(i))) {
          const int number = at(i) - '0';
          if (ipv4_piece == -1) {
            ipv4_piece = number;
          } else if (ipv4_piece == 0) {
            return std::nullopt;
          } else {
            ipv4_piece = ipv4_piece * 10 + number;
          }
          if (ipv4_piece > 255) return std::nullopt;
          ++i;
        }
        address[piece] = static_cast<uint16_t>(address[piece] * 0x100 + ipv4_piece);
        ++numbers_seen;
        if (numbers_seen == 2 || numbers_seen == 4) ++piece;
      }
      if (numbers_seen != 4) return std::nullopt;
      break;
    }
    if (at(i) == ':') {
      ++i;
      if (i >= n) return std::nullopt;
    } else if (i < n) {
      return std::nullopt;
    }
    address[piece] = static_cast<uint16_t>(value);
    ++piece;
  }
  if (compress != -1) {
    int swaps = piece - compress;
    piece = 7;
    while (piece != 0 && swaps > 0) {
      std::swap(address[piece], address[compress + swaps - 1]);
      --piece;
      --swaps;
    }
  } else if (piece != 8) {
    return std::nullopt;
  }
  return address;
}

void AppendIpv6(const Ipv6Address& address, std::string& out) {
  // Find the first longest run of zero pieces of length >= 2.
  int best_start = -1, best_length = 1;
  for (int i = 0; i < 8;) {
    if (address[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && address[j] == 0) ++j;
    if (j - i > best_length) {
      best_start = i;
      best_length = j - i;
    }
    i = j;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('[');
  bool ignore0 = false;
  for (int i = 0; i < 8; ++i) {
    if (ignore0 && address[i] == 0) continue;
    ignore0 = false;
    if (i == best_start) {
      out.append(i == 0 ? "::" : ":");
      ignore0 = true;
      continue;
    }
    const unsigned v = address[i];
    bool started = false;
    for (int shift = 12; shift >= 0; shift -= 4) {
      const unsigned nibble = (v >> shift) & 15;
      if (nibble != 0 || started || shift == 0) {
        out.push_back(kHex[nibble]);
        started = true;
      }
    }
    if (i != 7) out.push_back(':');
  }
  out.push_back(']');
}

}  // namespace crawler::url_internal
