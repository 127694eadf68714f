// Which robots.txt record a key names, with the misspellings real files use.
#ifndef CRAWLER_SRC_ROBOTS_RECORD_KEY_H_
#define CRAWLER_SRC_ROBOTS_RECORD_KEY_H_

#include <cstddef>
#include <string_view>

namespace crawler::robots_internal {

enum class RecordKey { kUserAgent, kAllow, kDisallow, kSitemap, kCrawlDelay, kUnknown };

// Case-insensitive. Accepts the spellings google/robotstxt accepts
// ("useragent", "user agent", "disalow", "dissallow", "site-map", ...): a
// typo in a site's Disallow must not open the site to us.
RecordKey ClassifyKey(std::string_view key);

// ASCII case-insensitive equality (robots.txt keys and product tokens).
inline bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// [A-Za-z_-]: the characters of a product token (RFC 9309 2.2.1).
inline bool IsProductTokenChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-';
}

}  // namespace crawler::robots_internal

#endif  // CRAWLER_SRC_ROBOTS_RECORD_KEY_H_
