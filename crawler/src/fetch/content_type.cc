// IsHtmlContentType: which responses the crawler parses for links.
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "crawler/fetch.h"

namespace crawler {

bool IsHtmlContentType(std::string_view content_type) {
  // "text/html; charset=utf-8" -> "text/html": parameters never change the type.
  const std::string_view before_parameters = content_type.substr(0, content_type.find(';'));
  // Debian's Abseil has its own absl::string_view, not an alias of std::string_view.
  const absl::string_view media_type = absl::StripAsciiWhitespace(
      absl::string_view(before_parameters.data(), before_parameters.size()));
  return absl::EqualsIgnoreCase(media_type, "text/html") ||
         absl::EqualsIgnoreCase(media_type, "application/xhtml+xml");
}

}  // namespace crawler
