#include "site_paths.h"

#include "absl/strings/str_cat.h"

namespace testsite {

std::string PagePath(uint64_t page) { return page == 0 ? "/" : absl::StrCat("/p/", page, ".html"); }

std::string LinkPath(const Link& link) {
  switch (link.kind) {
    case LinkKind::kPage:
      return PagePath(link.target);
    case LinkKind::kRedirect:
      return absl::StrCat("/r/", link.target);
    case LinkKind::kTextFile:
      return absl::StrCat("/f/", link.target, ".txt");
    case LinkKind::kPdfFile:
      return absl::StrCat("/f/", link.target, ".pdf");
    case LinkKind::kNofollow:
      return absl::StrCat("/nofollow/", link.target, ".html");
    case LinkKind::kStall:
      return "/stall";
    case LinkKind::kStallBody:
      return "/stall-body";
  }
  return "/";
}

std::optional<uint64_t> ParseNumberedPath(std::string_view path, std::string_view prefix,
                                          std::string_view suffix) {
  if (path.size() < prefix.size() + suffix.size() || !path.starts_with(prefix) ||
      !path.ends_with(suffix)) {
    return std::nullopt;
  }
  const std::string_view digits =
      path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  // At most 19 digits, so the value fits in 64 bits without an overflow check.
  if (digits.empty() || digits.size() > 19) return std::nullopt;
  if (digits.size() > 1 && digits[0] == '0') return std::nullopt;
  uint64_t number = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    number = number * 10 + static_cast<uint64_t>(c - '0');
  }
  return number;
}

}  // namespace testsite
