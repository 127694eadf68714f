// MediaTypeFilter, ParseExtensionList and HasExtension (crawler/type_filter.h).
#include "crawler/type_filter.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "config/strings.h"
#include "url/find_first_of.h"

namespace crawler {
namespace {

using config_internal::Absl;
using config_internal::Cat;
using config_internal::Std;

// RFC 9110 5.6.2 token characters.
bool IsTokenChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool IsToken(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), IsTokenChar);
}

// "Text/HTML ; charset=x" -> "text/html"; "" -> application/octet-stream.
std::string MediaTypeOf(std::string_view content_type) {
  const std::string_view before = content_type.substr(0, content_type.find(';'));
  std::string type(Std(absl::StripAsciiWhitespace(Absl(before))));
  if (type.empty()) return "application/octet-stream";
  absl::AsciiStrToLower(&type);
  return type;
}

bool MatchesPattern(std::string_view type, std::string_view pattern) {
  if (pattern == "*/*") return true;
  if (pattern.ends_with("/*")) return type.starts_with(pattern.substr(0, pattern.size() - 1));
  return type == pattern;
}

bool AnyMatches(std::string_view type, const std::vector<std::string>& patterns) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [type](const std::string& pattern) { return MatchesPattern(type, pattern); });
}

absl::StatusOr<std::vector<std::string>> Compile(const std::vector<std::string>& patterns) {
  std::vector<std::string> out;
  for (const std::string& pattern : patterns) {
    absl::Status ok = CheckMediaTypePattern(pattern);
    if (!ok.ok()) return ok;
    out.push_back(absl::AsciiStrToLower(Absl(pattern)));
  }
  return out;
}

bool IsExtensionChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("-_+~.").find(c) != std::string_view::npos;
}

}  // namespace

absl::Status CheckMediaTypePattern(std::string_view pattern) {
  const size_t slash = pattern.find('/');
  const std::string_view type = pattern.substr(0, slash);
  const std::string_view subtype =
      slash == std::string_view::npos ? std::string_view() : pattern.substr(slash + 1);
  const bool any = type == "*" && subtype == "*";
  if (any || (IsToken(type) && type != "*" && (subtype == "*" || IsToken(subtype)))) {
    if (subtype.find('*') == std::string_view::npos || subtype == "*") return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      Cat("'", pattern, "' is not a media type pattern (type/subtype, type/* or */*)"));
}

absl::StatusOr<MediaTypeFilter> MediaTypeFilter::Create(const std::vector<std::string>& accept,
                                                        const std::vector<std::string>& reject) {
  MediaTypeFilter filter;
  absl::StatusOr<std::vector<std::string>> accepted = Compile(accept);
  if (!accepted.ok()) return accepted.status();
  absl::StatusOr<std::vector<std::string>> rejected = Compile(reject);
  if (!rejected.ok()) return rejected.status();
  filter.accept_ = std::move(*accepted);
  filter.reject_ = std::move(*rejected);
  return filter;
}

bool MediaTypeFilter::Accepts(std::string_view content_type) const {
  if (empty()) return true;
  const std::string type = MediaTypeOf(content_type);
  if (!accept_.empty() && !AnyMatches(type, accept_)) return false;
  return !AnyMatches(type, reject_);
}

absl::StatusOr<std::vector<std::string>> ParseExtensionList(std::string_view list) {
  std::vector<std::string> out;
  for (absl::string_view piece : absl::StrSplit(Absl(list), ',')) {
    std::string item(Std(absl::StripAsciiWhitespace(piece)));
    if (item.starts_with('.')) item.erase(0, 1);
    const bool good = !item.empty() && !item.starts_with('.') && !item.ends_with('.') &&
                      std::all_of(item.begin(), item.end(), IsExtensionChar);
    if (!good) {
      return absl::InvalidArgumentError(
          Cat("'", list, "' is not a list of extensions like pdf,zip,mp4 (bad item '", item, "')"));
    }
    absl::AsciiStrToLower(&item);
    out.push_back(std::move(item));
  }
  return out;
}

bool HasExtension(std::string_view url, const std::vector<std::string>& extensions) {
  if (extensions.empty()) return false;
  const size_t scheme = url.find("://");
  const size_t path_start = url.find('/', scheme == std::string_view::npos ? 0 : scheme + 3);
  if (path_start == std::string_view::npos) return false;
  std::string_view path = url.substr(path_start);
  path = path.substr(0, FindFirstOf(path, "?#"));
  const std::string_view segment = path.substr(path.rfind('/') + 1);
  for (const std::string& extension : extensions) {
    if (segment.size() <= extension.size() + 1) continue;  // ".pdf" alone has no name
    const std::string_view tail = segment.substr(segment.size() - extension.size() - 1);
    if (tail[0] == '.' && absl::EqualsIgnoreCase(Absl(tail.substr(1)), extension)) return true;
  }
  return false;
}

}  // namespace crawler
