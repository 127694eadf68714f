// SiteGraph: which links each generated page carries, as a pure function of
// SiteOptions. It knows nothing of HTTP or HTML (see page_renderer.h); it is
// what makes the expected URL sets computable without crawling.
//
// Shape: page i > 0 is a child of page (i - 1) / fanout, fanout =
// max(1, links_per_page / 2), so every page is reachable from the root and the
// tree depth is about log_fanout(pages). The remaining links of a page point at
// seeded random pages (back links, cross links, self links, duplicates). With
// 1000 pages and 10 links a page the tree alone is 5 levels deep; with the
// random links 681 pages lie within 3 hops and all within 4 (seed 1). With
// 100000 pages: 1107 within 3, 65262 within 5, all within 7.
//
// All random draws happen whatever the odd-case switches say, so switching
// `redirects` on changes how a link is written, never where it points.
//
// Threading: immutable after construction; all methods are safe concurrently.
#ifndef TESTSITE_SRC_SITE_GRAPH_H_
#define TESTSITE_SRC_SITE_GRAPH_H_

#include <cstdint>
#include <vector>

#include "seeded_random.h"
#include "testsite/site_options.h"

namespace testsite {

enum class LinkKind {
  kPage,       // straight to page `target`
  kRedirect,   // /r/<target>, a 301 to page `target`
  kTextFile,   // /f/<target>.txt
  kPdfFile,    // /f/<target>.pdf
  kNofollow,   // rel="nofollow" to /nofollow/<target>.html
  kStall,      // /stall
  kStallBody,  // /stall-body
};

// How the href is spelled; all forms resolve to the same URL.
enum class LinkForm {
  kRelative,        // "7.html"
  kDotRelative,     // "./7.html"
  kParentRelative,  // "../p/7.html"
  kRootRelative,    // "/p/7.html"
  kAbsolute,        // "http://127.0.0.1:PORT/p/7.html"
};
inline constexpr int kLinkFormCount = 5;

struct Link {
  LinkKind kind = LinkKind::kPage;
  uint64_t target = 0;
  LinkForm form = LinkForm::kRootRelative;
  bool fragment = false;  // href ends in "#s<n>"
};

struct PageLayout {
  std::vector<Link> links;  // in page order
  bool base_href = false;   // page carries <base href="http://host:port/">
};

class SiteGraph {
 public:
  explicit SiteGraph(const SiteOptions& options);

  uint64_t pages() const { return pages_; }
  uint64_t fanout() const { return fanout_; }
  bool IsSlow(uint64_t page) const;

  // Links of page `page` < pages(). Deterministic; computed on each call.
  PageLayout Layout(uint64_t page) const;

  // Hop distance from the root of every page over followable links (kPage and
  // kRedirect), -1 if unreachable (never, by construction).
  std::vector<int64_t> Depths() const;
  // Pages with depth <= max_depth, ascending; max_depth < 0 means unbounded.
  std::vector<uint64_t> PagesWithinDepth(int64_t max_depth) const;
  // Non-HTML links of reachable pages, as (kind, file number), sorted, unique.
  std::vector<Link> LinkedFiles() const;

 private:
  void AddPageLinks(uint64_t page, SeededRandom& random, std::vector<Link>& links) const;
  void AddOddLinks(uint64_t page, SeededRandom& random, std::vector<Link>& links) const;

  SiteOptions options_;
  uint64_t pages_;
  uint64_t fanout_;
};

}  // namespace testsite

#endif  // TESTSITE_SRC_SITE_GRAPH_H_
