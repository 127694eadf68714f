// ReferenceCrawl: a deliberately simple breadth-first crawler for the testsite
// tests, so that the site's claims (every page reachable, depth sets, traps
// untouched) are checked against what is actually served, not against the
// generator's own bookkeeping. hrefs are found by a plain scan for <a href="">
// (std::regex trips GCC 12's -Wmaybe-uninitialized under ASan), resolved with
// RFC 3986 dot-segment removal, <base href> honoured, rel="nofollow" skipped,
// only text/html parsed, redirects followed (one hop = same depth).
// Threading: single-threaded; one keep-alive connection.
#ifndef TESTS_TESTSITE_REFERENCE_CRAWL_H_
#define TESTS_TESTSITE_REFERENCE_CRAWL_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "testsite/test_site.h"

namespace testsite_test {

struct CrawlResult {
  std::map<std::string, int> html_depth;  // path of every HTML page -> BFS depth
  std::set<std::string> non_html;         // paths fetched that were not HTML
  std::set<std::string> redirects;        // paths that answered 3xx
  std::vector<std::string> errors;        // "path: status"
};

// Crawls from "/" up to `max_depth` hops (-1: unbounded). Paths outside the
// site's base URL are ignored.
CrawlResult ReferenceCrawl(const testsite::TestSite& site, int max_depth = -1);

// The path (and query) of an absolute URL on `site`, or the empty string.
std::string PathOf(const testsite::TestSite& site, const std::string& url);

// The PathOf of each URL.
std::set<std::string> Paths(const testsite::TestSite& site, const std::vector<std::string>& urls);

// A started site, or nullptr after a failed EXPECT naming the error.
std::unique_ptr<testsite::TestSite> StartOrDie(const testsite::SiteOptions& options);

// Every href="..." value in `html` whose <a> tag has no rel="nofollow".
std::vector<std::string> FollowableHrefs(const std::string& html);

// Resolves `href` against the absolute path `base_path` ("/p/3.html"); returns
// the path without fragment, or "" for other schemes and other hosts.
std::string ResolveHref(const std::string& base_url, const std::string& base_path,
                        const std::string& href);

}  // namespace testsite_test

#endif  // TESTS_TESTSITE_REFERENCE_CRAWL_H_
