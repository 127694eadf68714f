// Record keys of robots.txt, tolerant of the typos google/robotstxt tolerates.
#include "robots/record_key.h"

#include <initializer_list>

namespace crawler::robots_internal {
namespace {

bool EqualsAny(std::string_view key, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    if (EqualsIgnoreAsciiCase(key, name)) return true;
  }
  return false;
}

}  // namespace

RecordKey ClassifyKey(std::string_view key) {
  if (EqualsAny(key, {"user-agent", "useragent", "user agent"})) return RecordKey::kUserAgent;
  if (EqualsAny(key, {"allow"})) return RecordKey::kAllow;
  if (EqualsAny(key, {"disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw"})) {
    return RecordKey::kDisallow;
  }
  if (EqualsAny(key, {"sitemap", "site-map"})) return RecordKey::kSitemap;
  if (EqualsAny(key, {"crawl-delay", "crawldelay"})) return RecordKey::kCrawlDelay;
  return RecordKey::kUnknown;
}

}  // namespace crawler::robots_internal
