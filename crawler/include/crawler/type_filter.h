// What the crawl skips by kind of content: responses by their Content-Type
// (--accept-type, --reject-type) and links by their path's extension
// (--reject-ext). Both default to keeping everything.
//
//   absl::StatusOr<crawler::MediaTypeFilter> types =
//       crawler::MediaTypeFilter::Create({"text/html"}, {"image/*"});
//   types->Accepts("text/html; charset=utf-8");   // true
//   types->Accepts("application/pdf");            // false: not accepted
//   absl::StatusOr<std::vector<std::string>> ext = crawler::ParseExtensionList("pdf,.ZIP");
//   crawler::HasExtension("http://a.test/x/Report.PDF?v=2", *ext);  // true
//
// Patterns: "type/subtype", "type/*" or "*/*", compared without case; the
// media type of a Content-Type value is what precedes its parameters
// ("text/html; charset=utf-8" is text/html). A response without a
// Content-Type is application/octet-stream (RFC 9110 8.3).
// Extensions: letters, digits and - _ + ~ . (a leading dot is dropped); a
// URL has extension "gz" and "tar.gz" when its path's last segment ends in
// ".tar.gz". Case is ignored. The query and fragment are not part of it.
//
// Threading: the functions are pure; a MediaTypeFilter is immutable after
// Create, safe to share between threads.
#ifndef CRAWLER_TYPE_FILTER_H_
#define CRAWLER_TYPE_FILTER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace crawler {

// OK when `pattern` is a media type pattern as above; else InvalidArgument
// quoting it ("'text' is not a media type pattern (type/subtype, type/* or
// */*)").
absl::Status CheckMediaTypePattern(std::string_view pattern);

class MediaTypeFilter {
 public:
  // An empty `accept` accepts every type; `reject` wins over `accept`.
  // InvalidArgument when a pattern is malformed.
  static absl::StatusOr<MediaTypeFilter> Create(const std::vector<std::string>& accept,
                                                const std::vector<std::string>& reject);
  MediaTypeFilter() = default;  // accepts everything

  // `content_type` is a Content-Type header value, "" when there was none.
  bool Accepts(std::string_view content_type) const;
  // No pattern at all: Accepts is always true.
  bool empty() const { return accept_.empty() && reject_.empty(); }

 private:
  std::vector<std::string> accept_;  // lower case
  std::vector<std::string> reject_;
};

// "pdf,zip,.MP4" -> {"pdf", "zip", "mp4"}: lower case, without dots in front.
// InvalidArgument quoting the item when one is empty or has another character.
absl::StatusOr<std::vector<std::string>> ParseExtensionList(std::string_view list);

// Whether the path of `url` (absolute, serialized) ends in "." + one of
// `extensions` (as ParseExtensionList returns them).
bool HasExtension(std::string_view url, const std::vector<std::string>& extensions);

}  // namespace crawler

#endif  // CRAWLER_TYPE_FILTER_H_
