#include "app/page_validators.h"

#include "crawler/warc.h"

namespace crawler {
namespace {

// Debian's Abseil has its own string_view: these take the standard one.
std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

bool SameHeaderName(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace

std::string ResponseHeader(std::string_view block, std::string_view name) {
  // The first line is the status line; a header's name ends at its colon.
  size_t line_start = block.find('\n');
  while (line_start != std::string_view::npos && line_start + 1 < block.size()) {
    const size_t begin = line_start + 1;
    const size_t end = block.find('\n', begin);
    const std::string_view line =
        block.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos &&
        SameHeaderName(TrimBlanks(line.substr(0, colon)), name)) {
      return std::string(TrimBlanks(line.substr(colon + 1)));
    }
    line_start = end;
  }
  return "";
}

PageValidators ValidatorsOf(const FetchResult& result) {
  PageValidators validators;
  if (result.status < 200 || result.status >= 300 || !result.error.empty()) return validators;
  validators.etag = ResponseHeader(result.headers, "ETag");
  validators.last_modified = ResponseHeader(result.headers, "Last-Modified");
  validators.sha1 = PayloadSha1(result.body);
  return validators;
}

void NoteValidators(const PageValidators& validators, PageRecord* record) {
  record->etag = validators.etag;
  record->last_modified = validators.last_modified;
  record->digest = validators.sha1.empty() ? "" : DigestText(validators.sha1);
}

}  // namespace crawler
