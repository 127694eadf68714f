// UTF-8 validity and ASCII checks over raw bodies: the cheap passes that let
// most pages skip charset conversion (they run at memory speed, GB/s, next
// to Gumbo's ~10 MB/s).
#ifndef CRAWLER_SRC_LINKS_UTF8_H_
#define CRAWLER_SRC_LINKS_UTF8_H_

#include <string_view>

namespace crawler::links_internal {

// True if `bytes` is well-formed UTF-8 (RFC 3629: no overlongs, no
// surrogates, nothing above U+10FFFF).
bool IsValidUtf8(std::string_view bytes);

// True if every byte is below 0x80.
bool IsAscii(std::string_view bytes);

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_UTF8_H_
