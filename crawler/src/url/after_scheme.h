// AfterScheme: where the authority of "scheme://authority/..." starts, that
// is url.find("://") + 3, or npos. The crawler's own URLs are nearly all
// "http://" or "https://", checked first, before the search for "://" that
// the link filter, the trap guard and EraseUserinfo run on every link.
//
//   const size_t host_start = AfterScheme(url);  // 7 for "http://a.com/"
#ifndef CRAWLER_URL_AFTER_SCHEME_H_
#define CRAWLER_URL_AFTER_SCHEME_H_

#include <cstddef>
#include <string_view>

namespace crawler {

inline size_t AfterScheme(std::string_view url) {
  if (url.starts_with("http://")) return 7;
  if (url.starts_with("https://")) return 8;
  const size_t at = url.find("://");
  return at == std::string_view::npos ? at : at + 3;
}

}  // namespace crawler

#endif  // CRAWLER_URL_AFTER_SCHEME_H_
