// PageRenderer: the bytes of every generated resource. Pages look like real
// HTML (title, nav list, paragraphs with inline links, a footer) of about
// `page_bytes`, so that parsing costs what it costs on the web; non-HTML files
// carry anchor text a crawler must not parse.
// Threading: immutable after construction; all methods are safe concurrently.
#ifndef TESTSITE_SRC_PAGE_RENDERER_H_
#define TESTSITE_SRC_PAGE_RENDERER_H_

#include <cstdint>
#include <string>

#include "site_graph.h"
#include "testsite/site_options.h"

namespace testsite {

class PageRenderer {
 public:
  // `base_url` is "http://host:port", used in absolute links. `root_extra_html`
  // goes at the end of the root page's body (the hostile cases' links).
  PageRenderer(const SiteOptions& options, const SiteGraph& graph, std::string base_url,
               std::string root_extra_html = "");

  std::string Page(uint64_t page) const;
  std::string NofollowPage(uint64_t number) const;
  std::string TextFile(uint64_t number) const;
  std::string PdfFile(uint64_t number) const;

  // The href of `link` on a page whose links resolve against "/" (the root,
  // or a page with <base href>) or against "/p/".
  std::string Href(const Link& link, bool resolves_against_root) const;

 private:
  // Seeded filler text of about `bytes`, stream `stream` of item `item`.
  std::string Filler(uint64_t item, uint64_t stream, size_t bytes) const;
  void AppendBody(uint64_t page, const PageLayout& layout, std::string& html) const;

  const SiteOptions options_;
  const SiteGraph& graph_;
  const std::string base_url_;
  const std::string root_extra_html_;
};

}  // namespace testsite

#endif  // TESTSITE_SRC_PAGE_RENDERER_H_
