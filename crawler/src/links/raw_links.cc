// FindRawLinks: one pre-order walk that hands each element to the
// LinkCollector (link_collector.h), the rule the scanner uses too; per
// element only a tag compare unless the tag is one of the few that carry
// links.
#include "links/raw_links.h"

#include "links/link_collector.h"

namespace crawler::links_internal {
namespace {

// An attribute of a Gumbo element by LinkAttr (kLinkAttrNames are string
// literals, so their data() is NUL-terminated).
std::optional<std::string_view> GumboLinkAttr(const GumboElement& element, LinkAttr attr) {
  const GumboAttribute* attribute =
      gumbo_get_attribute(&element.attributes, kLinkAttrNames[attr].data());
  if (attribute == nullptr) return std::nullopt;
  return std::string_view(attribute->value);
}

}  // namespace

RawPage FindRawLinks(const GumboNode* document, size_t max_links) {
  LinkCollector collector(max_links);
  std::vector<const GumboNode*> stack;
  if (document != nullptr) stack.push_back(document);
  while (!stack.empty()) {
    const GumboNode* node = stack.back();
    stack.pop_back();
    const GumboVector* children = &node->v.document.children;
    if (node->type == GUMBO_NODE_ELEMENT) {
      const GumboElement& element = node->v.element;
      collector.Visit(element.tag, element.tag_namespace,
                      [&element](LinkAttr attr) { return GumboLinkAttr(element, attr); });
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
