// The WHATWG IPv4 parser, its "ends in a number" test and serializer.
#include "absl/strings/ascii.h"
#include "url/ip_address.h"
#include "url/percent_encode.h"

namespace crawler::url_internal {
namespace {

// The WHATWG "IPv4 number parser". Values saturate above 2^32, which is
// already a failure for every caller, so no part can overflow.
std::optional<uint64_t> ParseIpv4Number(std::string_view part) {
  if (part.empty()) return std::nullopt;
  int radix = 10;
  if (part.size() >= 2 && part[0] == '0' && (part[1] == 'x' || part[1] == 'X')) {
    part.remove_prefix(2);
    radix = 16;
  } else if (part.size() >= 2 && part[0] == '0') {
    part.remove_prefix(1);
    radix = 8;
  }
  uint64_t value = 0;
  for (char c : part) {
    int digit;
    if (radix == 16 && IsHexDigit(static_cast<unsigned char>(c))) {
      digit = HexValue(static_cast<unsigned char>(c));
    } else if (absl::ascii_isdigit(c) && c - '0' < radix) {
      digit = c - '0';
    } else {
      return std::nullopt;
    }
    value = value * radix + digit;
    if (value > (uint64_t{1} << 40)) value = uint64_t{1} << 40;  // saturate
  }
  return value;
}

// Splits on '.', dropping one trailing empty part (the FQDN dot).
int SplitIpv4Parts(std::string_view input, std::string_view (&parts)[5]) {
  int count = 0;
  size_t start = 0;
  while (true) {
    const size_t dot = input.find('.', start);
    const std::string_view part =
        input.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (count == 5) return 6;  // too many, whatever they are
    parts[count++] = part;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (count > 1 && parts[count - 1].empty()) --count;
  return count;
}

}  // namespace

bool EndsInANumber(std::string_view domain) {
  if (!domain.empty() && domain.back() == '.') {
    domain.remove_suffix(1);
    if (domain.empty()) return false;
  }
  const size_t dot = domain.rfind('.');
  const std::string_view last = dot == std::string_view::npos ? domain : domain.substr(dot + 1);
  if (last.empty()) return false;
  bool all_digits = true;
  for (char c : last) all_digits = all_digits && absl::ascii_isdigit(c);
  if (all_digits) return true;
  return ParseIpv4Number(last).has_value();
}

std::optional<uint32_t> ParseIpv4(std::string_view input) {
  std::string_view parts[5];
  const int count = SplitIpv4Parts(input, parts);
  if (count > 4) return std::nullopt;
  uint64_t numbers[4];
  for (int i = 0; i < count; ++i) {
    const std::optional<uint64_t> number = ParseIpv4Number(parts[i]);
    if (!number) return std::nullopt;
    numbers[i] = *number;
  }
  for (int i = 0; i + 1 < count; ++i) {
    if (numbers[i] > 255) return std::nullopt;
  }
  const uint64_t last = numbers[count - 1];
  if (last >= (uint64_t{1} << (8 * (5 - count)))) return std::nullopt;
  uint64_t address = last;
  for (int i = 0; i + 1 < count; ++i) address += numbers[i] << (8 * (3 - i));
  return static_cast<uint32_t>(address);
}

void AppendIpv4(uint32_t address, std::string& out) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    const unsigned byte = (address >> shift) & 0xFF;
    if (byte >= 100) out.push_back(static_cast<char>('0' + byte / 100));
    if (byte >= 10) out.push_back(static_cast<char>('0' + byte / 10 % 10));
    out.push_back(static_cast<char>('0' + byte % 10));
    if (shift > 0) out.push_back('.');
  }
}

}  // namespace crawler::url_internal
