// RedactCredentials: a line scan of the request block curl sent.
#include "fetch/redact_credentials.h"

#include <string_view>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace crawler::fetch_internal {

void RedactCredentials(std::string& request_headers) {
  size_t line = 0;
  while (line < request_headers.size()) {
    size_t end = request_headers.find("\r\n", line);
    if (end == std::string::npos) end = request_headers.size();
    const std::string_view text(request_headers.data() + line, end - line);
    const size_t colon = text.find(':');
    const std::string_view field = text.substr(0, colon == std::string_view::npos ? 0 : colon);
    const absl::string_view name(field.data(), field.size());
    if (absl::EqualsIgnoreCase(name, "authorization") ||
        absl::EqualsIgnoreCase(name, "proxy-authorization")) {
      size_t value = colon + 1;
      while (value < text.size() && text[value] == ' ') ++value;
      // "Basic xyz" keeps "Basic "; a lone token is all secret.
      const size_t scheme_end = text.find(' ', value);
      const size_t keep = scheme_end == std::string_view::npos ? value : scheme_end + 1;
      const std::string kept = absl::StrCat(std::string(text.substr(0, keep)), "[redacted]");
      request_headers.replace(line, end - line, kept);
      end = line + kept.size();
    }
    line = end + 2;
  }
}

}  // namespace crawler::fetch_internal
