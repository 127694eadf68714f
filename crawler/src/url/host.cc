#include "url/host.h"

#include "url/idna.h"
#include "url/ip_address.h"
#include "url/percent_encode.h"

namespace crawler::url_internal {
namespace {

// U+0000, TAB, LF, CR, space, # / : < > ? @ [ \ ] ^ |
bool IsForbiddenHostCodePoint(unsigned char c) {
  switch (c) {
    case 0x00:
    case '\t':
    case '\n':
    case '\r':
    case ' ':
    case '#':
    case '/':
    case ':':
    case '<':
    case '>':
    case '?':
    case '@':
    case '[':
    case '\\':
    case ']':
    case '^':
    case '|':
      return true;
    default:
      return false;
  }
}

// Forbidden host code points plus C0 controls, % and DEL.
bool IsForbiddenDomainCodePoint(unsigned char c) {
  return IsForbiddenHostCodePoint(c) || c < 0x20 || c == '%' || c == 0x7F;
}

// An ASCII domain skips IDNA: the URL Standard (whatwg/url#914, 2026) makes
// "domain to ASCII" of an ASCII string its lower-casing, even when a label
// starts with "xn--" and is not valid Punycode, as browsers always did.
// (With UseSTD3ASCIIRules off, UTS #46 would only lower-case it anyway.)
bool IsAsciiDomain(std::string_view domain) {
  for (char c : domain) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

const char* AppendOpaqueHost(std::string_view input, std::string& out) {
  for (char c : input) {
    if (IsForbiddenHostCodePoint(static_cast<unsigned char>(c))) {
      return "forbidden code point in host";
    }
  }
  AppendEncoded(input, EncodeSet::kC0Control, out);
  return nullptr;
}

const char* AppendIpv6Host(std::string_view input, std::string& out) {
  if (input.size() < 2 || input.back() != ']') return "invalid IPv6 address";
  const std::optional<Ipv6Address> address = ParseIpv6(input.substr(1, input.size() - 2));
  if (!address) return "invalid IPv6 address";
  AppendIpv6(*address, out);
  return nullptr;
}

}  // namespace

const char* AppendParsedHost(std::string_view input, bool is_special, std::string& out) {
  if (!input.empty() && input.front() == '[') return AppendIpv6Host(input, out);
  if (!is_special) return AppendOpaqueHost(input, out);
  // Percent-decoding needs a scratch string only when there is a '%'.
  std::string decoded;
  std::string_view domain = input;
  if (input.find('%') != std::string_view::npos) {
    PercentDecode(input, decoded);
    domain = decoded;
  }
  const size_t start = out.size();
  if (IsAsciiDomain(domain)) {
    for (char c : domain) out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c | 0x20) : c);
  } else if (!DomainToAscii(domain, out)) {
    return "invalid international domain name";
  }
  const std::string_view ascii(out.data() + start, out.size() - start);
  if (ascii.empty()) return "empty host";
  for (char c : ascii) {
    if (IsForbiddenDomainCodePoint(static_cast<unsigned char>(c))) {
      return "forbidden code point in host";
    }
  }
  if (EndsInANumber(ascii)) {
    const std::optional<uint32_t> address = ParseIpv4(ascii);
    if (!address) return "invalid IPv4 address";
    out.resize(start);
    AppendIpv4(*address, out);
  }
  return nullptr;
}

}  // namespace crawler::url_internal
