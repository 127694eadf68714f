// UrlParts: a serialized absolute URL split once into the pieces the link
// filter (its host, for --scope) and the trap guard (its authority, path and
// whether a query follows) read. Each discovered link is split once and the
// parts handed to both: three scans of every link's URL (the filter's host,
// the trap guard's parts, the host of that authority) were ~3.5% of a
// crawl's user-space instructions on the synthetic site.
//
//   const std::string url = "http://u@a.b:81/x/y?q#f";
//   const crawler::UrlParts parts = crawler::SplitUrl(url);
//   // parts.authority == "u@a.b:81", parts.host == "a.b",
//   // parts.path == "/x/y", parts.has_query == true
//   if (filter.Check(url, parts, depth) == crawler::LinkVerdict::kFollow) ...
//
// The parts are views into the URL: they are valid while its bytes are
// neither changed nor moved (a std::string moved in its short-string buffer
// moves its bytes too).
//
// Threading: SplitUrl is a pure function, safe to call from any thread.
#ifndef CRAWLER_URL_PARTS_H_
#define CRAWLER_URL_PARTS_H_

#include <string_view>

namespace crawler {

struct UrlParts {
  // What follows "://" up to the first '/', '?' or '#' (or the end):
  // "u@a.b:81". Empty when the URL has no "://".
  std::string_view authority;
  // The authority's host, without userinfo and port: "a.b", "[::1]"
  // (HostOfAuthority of `authority`, crawler/link_filter.h).
  std::string_view host;
  // From the authority's end up to the first '?' or '#' (or the end):
  // "/x/y". Empty when nothing follows the authority, or when a '?' or '#'
  // follows it at once; then it is an empty view at that '?' or '#', so
  // the URL up to the end of its path is always
  // url.substr(0, path.data() + path.size() - url.data()) when has_query.
  std::string_view path;
  // A '?' ends the path (a query follows, empty or not).
  bool has_query = false;
};

// `url` split once. Only the bytes decide: "://" (after "http" or "https",
// checked first, or anywhere), then '/', '?', '#' and '@', ':', '[', ']' in
// the authority; nothing is validated or decoded.
UrlParts SplitUrl(std::string_view url);

}  // namespace crawler

#endif  // CRAWLER_URL_PARTS_H_
