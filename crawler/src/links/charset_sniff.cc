// SniffHtmlCharset: the order of the HTML standard's encoding sniffing
// algorithm (13.2.3.2) — BOM, transport, <meta> prescan, then our fallback.
#include <string>
#include <string_view>

#include "crawler/charset.h"
#include "links/charset_label.h"
#include "links/utf8.h"

namespace crawler {
namespace {

using links_internal::kUtf8;
using links_internal::kWindows1252;
using links_internal::LabelOrigin;
using links_internal::ResolveCharsetLabel;

struct Bom {
  std::string_view bytes;
  std::string_view charset;
};

constexpr Bom kBoms[] = {
    {"\xEF\xBB\xBF", "UTF-8"},
    {"\xFF\xFE", "UTF-16LE"},
    {"\xFE\xFF", "UTF-16BE"},
};

}  // namespace

SniffedCharset SniffHtmlCharset(std::string_view body, std::string_view content_type) {
  for (const Bom& bom : kBoms) {
    if (body.starts_with(bom.bytes)) {
      return {std::string(bom.charset), body.substr(0, bom.bytes.size())};
    }
  }
  std::string name = ResolveCharsetLabel(ContentTypeCharset(content_type), LabelOrigin::kTransport);
  if (name.empty()) name = ResolveCharsetLabel(PrescanMetaCharset(body), LabelOrigin::kMeta);
  // No usable declaration. The standard leaves this step to the browser
  // (which guesses from the locale); valid UTF-8 with any non-ASCII byte is
  // almost never meant as windows-1252, and for ASCII both are the same.
  if (name.empty()) {
    name = links_internal::IsValidUtf8(body) ? kUtf8 : kWindows1252;
  }
  return {std::move(name), {}};
}

}  // namespace crawler
