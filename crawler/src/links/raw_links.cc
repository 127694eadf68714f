// FindRawLinks: one pre-order walk; per element only a tag compare unless the
// tag is one of the few that carry links.
#include "links/raw_links.h"

#include "links/ascii.h"
#include "links/html_tokens.h"

namespace crawler::links_internal {
namespace {

std::optional<std::string_view> Attribute(const GumboElement& element, const char* name) {
  const GumboAttribute* attribute = gumbo_get_attribute(&element.attributes, name);
  if (attribute == nullptr) return std::nullopt;
  return std::string_view(attribute->value);
}

bool RelSaysNofollow(const GumboElement& element) {
  const std::optional<std::string_view> rel = Attribute(element, "rel");
  return rel && HasRelToken(*rel, "nofollow");
}

// <link> is followed only for the relations that name another page (or the
// page's preferred URL), not for stylesheets, icons, preloads.
bool IsNavigationalLink(const GumboElement& element) {
  const std::optional<std::string_view> rel = Attribute(element, "rel");
  if (!rel) return false;
  if (HasRelToken(*rel, "stylesheet") || HasRelToken(*rel, "icon")) return false;
  return HasRelToken(*rel, "canonical") || HasRelToken(*rel, "alternate") ||
         HasRelToken(*rel, "next") || HasRelToken(*rel, "prev");
}

class Collector {
 public:
  explicit Collector(size_t max_links) : max_links_(max_links) {}

  void Visit(const GumboElement& element) {
    if (element.tag_namespace != GUMBO_NAMESPACE_HTML) {
      if (element.tag == GUMBO_TAG_A && element.tag_namespace == GUMBO_NAMESPACE_SVG) {
        Add(element, "href", LinkSource::kAnchor);
      }
      return;
    }
    switch (element.tag) {
      case GUMBO_TAG_A:
        return Add(element, "href", LinkSource::kAnchor);
      case GUMBO_TAG_AREA:
        return Add(element, "href", LinkSource::kArea);
      case GUMBO_TAG_LINK:
        if (IsNavigationalLink(element)) Add(element, "href", LinkSource::kLink);
        return;
      case GUMBO_TAG_IFRAME:
        return Add(element, "src", LinkSource::kIframe);
      case GUMBO_TAG_FRAME:
        return Add(element, "src", LinkSource::kFrame);
      case GUMBO_TAG_META:
        return VisitMeta(element);
      case GUMBO_TAG_BASE:
        if (!page_.base) page_.base = Attribute(element, "href");
        return;
      default:
        return;
    }
  }

  RawPage Take() { return std::move(page_); }

 private:
  void Add(const GumboElement& element, const char* name, LinkSource source) {
    const std::optional<std::string_view> href = Attribute(element, name);
    if (href) Keep(*href, source, RelSaysNofollow(element));
  }

  void Keep(std::string_view href, LinkSource source, bool nofollow) {
    ++page_.links_found;
    if (page_.links.size() < max_links_) page_.links.push_back({href, source, nofollow});
  }

  void VisitMeta(const GumboElement& element) {
    const std::optional<std::string_view> content = Attribute(element, "content");
    if (!content) return;
    const std::optional<std::string_view> equiv = Attribute(element, "http-equiv");
    if (equiv && EqualsIgnoreCase(TrimHtmlSpace(*equiv), "refresh")) {
      if (std::optional<std::string_view> url = MetaRefreshUrl(*content)) {
        Keep(*url, LinkSource::kMetaRefresh, false);
      }
      return;
    }
    const std::optional<std::string_view> name = Attribute(element, "name");
    if (name && EqualsIgnoreCase(TrimHtmlSpace(*name), "robots") &&
        RobotsContentSaysNofollow(*content)) {
      page_.page_nofollow = true;
    }
  }

  size_t max_links_;
  RawPage page_;
};

}  // namespace

RawPage FindRawLinks(const GumboNode* document, size_t max_links) {
  Collector collector(max_links);
  std::vector<const GumboNode*> stack;
  if (document != nullptr) stack.push_back(document);
  while (!stack.empty()) {
    const GumboNode* node = stack.back();
    stack.pop_back();
    const GumboVector* children = &node->v.document.children;
    if (node->type == GUMBO_NODE_ELEMENT) {
      collector.Visit(node->v.element);
      children = &node->v.element.children;
    }

    // Only elements carry links; a <template> is a GUMBO_NODE_TEMPLATE and
    // its inert contents are skipped with it. Reverse push: the first child is popped first, so
    // links come out in document order.
    for (unsigned i = children->length; i > 0; --i) {
      const auto* child = static_cast<const GumboNode*>(children->data[i - 1]);
      if (child->type == GUMBO_NODE_ELEMENT) stack.push_back(child);
    }
  }
  return collector.Take();
}

}  // namespace crawler::links_internal
