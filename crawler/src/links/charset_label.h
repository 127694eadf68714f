// Charset labels -> the name the converter uses, with the Encoding Standard's
// few overrides that matter for real pages (latin1 means windows-1252, ...).
#ifndef CRAWLER_SRC_LINKS_CHARSET_LABEL_H_
#define CRAWLER_SRC_LINKS_CHARSET_LABEL_H_

#include <string>
#include <string_view>

namespace crawler::links_internal {

// Where a label came from: a <meta> cannot declare UTF-16 (the bytes it was
// read from were ASCII), so the standard reads such a claim as UTF-8.
enum class LabelOrigin { kTransport, kMeta };

// The canonical name for `label` ("UTF-8", "windows-1252", "Shift_JIS"...),
// or empty if ICU has no converter for it.
std::string ResolveCharsetLabel(std::string_view label, LabelOrigin origin);

inline constexpr std::string_view kUtf8 = "UTF-8";
inline constexpr std::string_view kWindows1252 = "windows-1252";

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_CHARSET_LABEL_H_
