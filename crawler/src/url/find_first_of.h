// FindFirstOf: std::string_view::find_first_of for a few delimiters, written
// as a plain loop. libstdc++'s find_first_of looks each character of the
// string up in the set with a call to memchr, and the URL splitting that runs
// for every link of every page (host, path, query) spent ~5% of a crawl's CPU
// in those calls (perf, the Python docs crawl).
//
//   const size_t end = FindFirstOf(url, "/?#", host_start);  // npos if none
#ifndef CRAWLER_URL_FIND_FIRST_OF_H_
#define CRAWLER_URL_FIND_FIRST_OF_H_

#include <cstddef>
#include <string_view>

namespace crawler {

inline size_t FindFirstOf(std::string_view s, std::string_view set, size_t pos = 0) {
  for (size_t i = pos; i < s.size(); ++i) {
    for (const char d : set) {
      if (s[i] == d) return i;
    }
  }
  return std::string_view::npos;
}

}  // namespace crawler

#endif  // CRAWLER_URL_FIND_FIRST_OF_H_
