// ContentTypeCharset: the charset parameter of a Content-Type header value.
#include <string_view>

#include "crawler/charset.h"
#include "links/ascii.h"

namespace crawler {

using links_internal::EqualsIgnoreCase;
using links_internal::TrimHtmlSpace;

std::string_view ContentTypeCharset(std::string_view content_type) {
  // "type/subtype; name=value; name="value"": parameters after each ';'.
  size_t semicolon = content_type.find(';');
  while (semicolon != std::string_view::npos) {
    std::string_view rest = content_type.substr(semicolon + 1);
    const size_t next = rest.find(';');
    std::string_view param = TrimHtmlSpace(rest.substr(0, next));
    const size_t equals = param.find('=');
    if (equals != std::string_view::npos &&
        EqualsIgnoreCase(TrimHtmlSpace(param.substr(0, equals)), "charset")) {
      std::string_view value = TrimHtmlSpace(param.substr(equals + 1));
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
          value.back() == value.front()) {
        value = value.substr(1, value.size() - 2);
      }
      return TrimHtmlSpace(value);
    }
    semicolon = next == std::string_view::npos ? next : semicolon + 1 + next;
  }
  return {};
}

}  // namespace crawler
