// The small attribute grammars a link extractor reads: rel token lists,
// meta robots directives and meta refresh content.
#ifndef CRAWLER_SRC_LINKS_HTML_TOKENS_H_
#define CRAWLER_SRC_LINKS_HTML_TOKENS_H_

#include <optional>
#include <string_view>

namespace crawler::links_internal {

// True if the space-separated token list (rel="...") holds `token`, ASCII
// case-insensitively.
bool HasRelToken(std::string_view list, std::string_view token);

// True if <meta name=robots content=...> forbids following links: a
// "nofollow" or "none" directive (comma- or space-separated, any case).
bool RobotsContentSaysNofollow(std::string_view content);

// The URL of <meta http-equiv=refresh content=...>, by the HTML standard's
// "shared declarative refresh steps": "5; url=/next", "0;URL='/x'", "3,/y".
// nullopt when the content is malformed or refreshes the page itself.
std::optional<std::string_view> MetaRefreshUrl(std::string_view content);

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_HTML_TOKENS_H_
