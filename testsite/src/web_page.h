// The bytes of a simulated web page (see testsite/simulated_web.h): a small
// HTML document with seeded filler text and the page's links, on-host ones
// root-relative ("/p/7.html"), the others absolute ("http://127.1.0.9:PORT/").
// Threading: pure functions.
#ifndef TESTSITE_SRC_WEB_PAGE_H_
#define TESTSITE_SRC_WEB_PAGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "testsite/web_graph.h"

namespace testsite {

// "/" for page 0, "/p/<page>.html" otherwise.
std::string WebPagePath(uint64_t page);
// `links` are graph.Links(host, page), passed in so the caller can look at them too.
std::string RenderWebPage(const WebGraph& graph, uint64_t host, uint64_t page,
                          const std::vector<WebLink>& links, int port);

}  // namespace testsite

#endif  // TESTSITE_SRC_WEB_PAGE_H_
