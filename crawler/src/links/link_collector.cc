// LinkCollector's out-of-line steps: keeping a link under max_links, and
// what a <meta> says (refresh target, robots nofollow).
#include "links/link_collector.h"

#include <algorithm>

#include "links/html_tokens.h"

namespace crawler::links_internal {

bool IsNavigationalRel(std::string_view rel) {
  if (HasRelToken(rel, "stylesheet") || HasRelToken(rel, "icon")) return false;
  return HasRelToken(rel, "canonical") || HasRelToken(rel, "alternate") ||
         HasRelToken(rel, "next") || HasRelToken(rel, "prev");
}

bool LinkCollector::RelSaysNofollow(const std::optional<std::string_view>& rel) {
  return rel && HasRelToken(*rel, "nofollow");
}

void LinkCollector::Keep(std::string_view url, LinkSource source, bool nofollow) {
  ++page_.links_found;
  if (page_.links.size() >= max_links_) return;
  // Room for a page's usual links at once: grown from one, the vector was
  // reallocated five times for the synthetic site's 16 links a page.
  if (page_.links.empty()) page_.links.reserve(std::min(max_links_, kFirstRoom));
  page_.links.push_back({url, source, nofollow});
}

void LinkCollector::VisitMeta(const std::optional<std::string_view>& content,
                              const std::optional<std::string_view>& http_equiv,
                              const std::optional<std::string_view>& name) {
  if (!content) return;
  if (http_equiv && EqualsIgnoreCase(TrimHtmlSpace(*http_equiv), "refresh")) {
    if (std::optional<std::string_view> url = MetaRefreshUrl(*content)) {
      Keep(*url, LinkSource::kMetaRefresh, false);
    }
    return;
  }
  if (name && EqualsIgnoreCase(TrimHtmlSpace(*name), "robots") &&
      RobotsContentSaysNofollow(*content)) {
    page_.page_nofollow = true;
  }
}

}  // namespace crawler::links_internal
