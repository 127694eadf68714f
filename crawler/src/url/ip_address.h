// IPv4 and IPv6 host parsers and serializers of the WHATWG URL Standard
// (sections 3.5 and 3.6). Internal to the url room.
#ifndef CRAWLER_SRC_URL_IP_ADDRESS_H_
#define CRAWLER_SRC_URL_IP_ADDRESS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace crawler::url_internal {

// "Ends in a number": whether an ASCII domain must be parsed as IPv4
// ("1.2.3.4", "0x7f.1", "example.123"), in which case failing to parse it
// fails the whole URL.
bool EndsInANumber(std::string_view domain);

// The WHATWG IPv4 parser: 1 to 4 dot-separated parts in decimal, octal
// (leading 0) or hex (0x); the last part fills the remaining bytes.
// nullopt on failure.
std::optional<uint32_t> ParseIpv4(std::string_view input);
void AppendIpv4(uint32_t address, std::string& out);

using Ipv6Address = std::array<uint16_t, 8>;
// The WHATWG IPv6 parser for the text between '[' and ']' (with "::"
// compression and an embedded dotted IPv4 tail). nullopt on failure.
std::optional<Ipv6Address> ParseIpv6(std::string_view input);
// Appends "[...]" with the longest run of two or more zero pieces compressed
// (the first on a tie) and lower-case hex.
void AppendIpv6(const Ipv6Address& address, std::string& out);

}  // namespace crawler::url_internal

#endif  // CRAWLER_SRC_URL_IP_ADDRESS_H_
