// PrintLinks: the `crawl links` subcommand's work, minus reading the input.
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "crawler/links.h"
#include "links/extract_links.h"

namespace crawler {

absl::StatusOr<size_t> PrintLinks(std::string_view html, std::string_view base_url,
                                  std::ostream& out, const LinkOptions& options) {
  std::optional<Url> base;
  if (!base_url.empty()) {
    absl::StatusOr<Url> parsed = Url::Parse(base_url, nullptr);
    if (!parsed.ok()) {
      // (Debian's absl::string_view is not std::string_view: no StrCat here.)
      std::string message = "--base ";
      message.append(base_url).append(": ").append(parsed.status().ToString());
      return absl::InvalidArgumentError(message);
    }
    base = *std::move(parsed);
  }
  const PageLinks page =
      links_internal::ExtractLinksFrom(html, /*content_type=*/"", base ? &*base : nullptr, options);
  for (const ExtractedLink& link : page.links) out << link.url << '\n';
  return page.rejected;
}

}  // namespace crawler
