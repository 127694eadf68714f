// ScanRawLinks: the tokenizer (html_tokenizer.h) feeding the tree model
// (tree_model.h), which hands the link elements to the LinkCollector
// (link_collector.h). Whichever of the two gives up says why.
#include "links/link_scanner.h"

#include "links/html_tokenizer.h"
#include "links/link_collector.h"
#include "links/tree_model.h"

namespace crawler::links_internal {

std::optional<RawPage> ScanRawLinks(std::string_view html, size_t max_links,
                                    std::deque<std::string>& storage, std::string* why) {
  LinkCollector links(max_links);
  TreeModel tree(links);
  HtmlTokenizer<TreeModel> tokenizer(html, storage, tree);
  if (!tokenizer.Run()) {
    if (why != nullptr) *why = tokenizer.why().empty() ? tree.why() : tokenizer.why();
    return std::nullopt;
  }
  return links.Take();
}

}  // namespace crawler::links_internal
