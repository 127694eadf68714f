// LinkCollector: the one rule of which elements carry which links, shared
// by both parsers. FindRawLinks (raw_links.h) feeds it the elements of
// Gumbo's tree; the scanner's tree model (tree_model.h) feeds it the start
// tags the tree would hold, in the same order. Because both read links
// through Visit, the rule (<a>/<area> href, navigational <link> href,
// <iframe>/<frame> src, <meta> refresh and robots, the first <base href>,
// rel=nofollow) is stated here once.
//
// Example:
//   LinkCollector links(1000);
//   std::optional<std::string_view> href = "/next";
//   links.Visit(GUMBO_TAG_A, GUMBO_NAMESPACE_HTML, [&](LinkAttr a) {
//     return a == kHref ? href : std::optional<std::string_view>();
//   });
//   RawPage page = links.Take();
//
// Threading: one collector per page, used from one thread.
#ifndef CRAWLER_SRC_LINKS_LINK_COLLECTOR_H_
#define CRAWLER_SRC_LINKS_LINK_COLLECTOR_H_

#include <gumbo.h>

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

#include "links/ascii.h"
#include "links/raw_links.h"

namespace crawler::links_internal {

// The attributes the rule reads, by their (lowercase) names.
enum LinkAttr { kHref, kSrc, kRel, kContent, kHttpEquiv, kName, kLinkAttrCount };
inline constexpr std::array<std::string_view, kLinkAttrCount> kLinkAttrNames = {
    "href", "src", "rel", "content", "http-equiv", "name"};

// Which LinkAttr a raw attribute name is, or -1. `svg`: on an SVG element,
// where Gumbo renames "xlink:href" to "href" (in the xlink namespace), so
// the first of the two is the element's href.
inline int LinkAttrOf(std::string_view raw_name, bool svg) {
  for (int i = 0; i < kLinkAttrCount; ++i) {
    if (EqualsIgnoreCase(raw_name, kLinkAttrNames[i])) return i;
  }
  if (svg && EqualsIgnoreCase(raw_name, "xlink:href")) return kHref;
  return -1;
}

// <link> is followed only for the relations that name another page (or the
// page's preferred URL), not for stylesheets, icons, preloads.
bool IsNavigationalRel(std::string_view rel);

class LinkCollector {
 public:
  explicit LinkCollector(size_t max_links) : max_links_(max_links) {}

  // Whether Visit reads any attribute of such an element: a reader may skip
  // the attributes of every other one.
  static bool ReadsAttributes(GumboTag tag, GumboNamespaceEnum ns) {
    if (ns != GUMBO_NAMESPACE_HTML) return ns == GUMBO_NAMESPACE_SVG && tag == GUMBO_TAG_A;
    switch (tag) {
      case GUMBO_TAG_A:
      case GUMBO_TAG_AREA:
      case GUMBO_TAG_LINK:
      case GUMBO_TAG_IFRAME:
      case GUMBO_TAG_FRAME:
      case GUMBO_TAG_META:
      case GUMBO_TAG_BASE:
        return true;
      default:
        return false;
    }
  }

  // One element of the tree, in document order (not inside <template>).
  // `attr(LinkAttr)` returns that attribute's value as the tree stores it
  // (references decoded), or nullopt when the element has none; it is
  // called only when ReadsAttributes is true.
  template <typename AttrFn>
  void Visit(GumboTag tag, GumboNamespaceEnum ns, const AttrFn& attr) {
    if (!ReadsAttributes(tag, ns)) return;
    switch (tag) {
      case GUMBO_TAG_A:
        return Add(attr(kHref), LinkSource::kAnchor, attr);
      case GUMBO_TAG_AREA:
        return Add(attr(kHref), LinkSource::kArea, attr);
      case GUMBO_TAG_LINK: {
        const std::optional<std::string_view> rel = attr(kRel);
        if (rel && IsNavigationalRel(*rel)) Add(attr(kHref), LinkSource::kLink, attr);
        return;
      }
      case GUMBO_TAG_IFRAME:
        return Add(attr(kSrc), LinkSource::kIframe, attr);
      case GUMBO_TAG_FRAME:
        return Add(attr(kSrc), LinkSource::kFrame, attr);
      case GUMBO_TAG_META:
        return VisitMeta(attr(kContent), attr(kHttpEquiv), attr(kName));
      case GUMBO_TAG_BASE:
        if (!page_.base) page_.base = attr(kHref);
        return;
      default:
        return;
    }
  }

  RawPage Take() { return std::move(page_); }

 private:
  // The element's link, if it has the attribute; rel=nofollow on the
  // element itself marks it.
  template <typename AttrFn>
  void Add(const std::optional<std::string_view>& url, LinkSource source, const AttrFn& attr) {
    if (url) Keep(*url, source, RelSaysNofollow(attr(kRel)));
  }

  static bool RelSaysNofollow(const std::optional<std::string_view>& rel);
  void Keep(std::string_view url, LinkSource source, bool nofollow);
  void VisitMeta(const std::optional<std::string_view>& content,
                 const std::optional<std::string_view>& http_equiv,
                 const std::optional<std::string_view>& name);

  // Links a page's vector has room for at its first: 32 x 24 bytes.
  static constexpr size_t kFirstRoom = 32;

  size_t max_links_;
  RawPage page_;
};

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_LINK_COLLECTOR_H_
