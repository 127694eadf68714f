// Percent-encode sets of the WHATWG URL Standard (section 1.3) and the
// helpers that append bytes under them. Internal to the url room.
//
// Every byte >= 0x80 is in every set: the input is UTF-8, so encoding byte by
// byte is exactly the Standard's "UTF-8 percent-encode" of the code point.
#ifndef CRAWLER_SRC_URL_PERCENT_ENCODE_H_
#define CRAWLER_SRC_URL_PERCENT_ENCODE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace crawler::url_internal {

enum class EncodeSet : uint8_t {
  kC0Control,     // C0 controls, DEL and non-ASCII: opaque paths and hosts
  kFragment,      // C0 + space " < > `
  kQuery,         // C0 + space " # < >
  kSpecialQuery,  // query + '  (http, https, ws, wss, ftp, file)
  kPath,          // query + ? ^ ` { }
  kUserinfo,      // path + / : ; = @ [ \ ] |
};

// True when byte `c` must be written as %XX under `set`.
bool InEncodeSet(unsigned char c, EncodeSet set);

// Appends "%XX" (upper-case hex, as the Standard serializes) for byte `c`.
inline void AppendPercentEscape(unsigned char c, std::string& out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  const char escape[3] = {'%', kHex[c >> 4], kHex[c & 15]};
  out.append(escape, 3);
}

// Appends `c`, escaped if it is in `set`.
inline void AppendEncoded(unsigned char c, EncodeSet set, std::string& out) {
  if (InEncodeSet(c, set)) {
    AppendPercentEscape(c, out);
  } else {
    out.push_back(static_cast<char>(c));
  }
}

// Appends every byte of `in`, escaped where `set` says so.
void AppendEncoded(std::string_view in, EncodeSet set, std::string& out);

inline bool IsHexDigit(unsigned char c) {
  return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}
inline int HexValue(unsigned char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }

// Percent-decodes `in` into `out` (cleared first); "%" not followed by two
// hex digits is kept as is (WHATWG "percent-decode").
void PercentDecode(std::string_view in, std::string& out);

}  // namespace crawler::url_internal

#endif  // CRAWLER_SRC_URL_PERCENT_ENCODE_H_
