#include "warc/http_headers.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace crawler::warc_internal {
namespace {

constexpr absl::string_view kRenamedPrefix = "X-Crawl-Original-";

// The lines of the first header block, without their line ends.
std::vector<absl::string_view> HeaderLines(absl::string_view block) {
  std::vector<absl::string_view> lines;
  for (absl::string_view line : absl::StrSplit(block, '\n')) {
    absl::ConsumeSuffix(&line, "\r");
    if (line.empty()) {
      if (lines.empty()) continue;  // leading blank lines are noise
      break;
    }
    lines.push_back(line);
  }
  return lines;
}

absl::string_view FieldName(absl::string_view line) {
  const size_t colon = line.find(':');
  return colon == absl::string_view::npos ? absl::string_view() : line.substr(0, colon);
}

absl::string_view FieldValue(absl::string_view line) {
  const size_t colon = line.find(':');
  return absl::StripAsciiWhitespace(line.substr(colon + 1));
}

bool ContentLengthIs(absl::string_view line, size_t body_size) {
  uint64_t value = 0;
  return absl::SimpleAtoi(FieldValue(line), &value) && value == body_size;
}

}  // namespace

std::string NormalizeHeaderBlock(absl::string_view block) {
  std::string out;
  out.reserve(block.size() + 8);
  for (absl::string_view line : HeaderLines(block)) absl::StrAppend(&out, line, "\r\n");
  out += "\r\n";
  return out;
}

std::string RewriteResponseHeaders(absl::string_view block, size_t body_size,
                                   bool content_decoded) {
  std::string out;
  out.reserve(block.size() + 64);
  bool length_renamed = false;
  bool first = true;
  for (absl::string_view line : HeaderLines(block)) {
    const absl::string_view name = first ? absl::string_view() : FieldName(line);
    first = false;
    bool rename = absl::EqualsIgnoreCase(name, "Transfer-Encoding") ||
                  (content_decoded && absl::EqualsIgnoreCase(name, "Content-Encoding"));
    if (absl::EqualsIgnoreCase(name, "Content-Length") && !ContentLengthIs(line, body_size)) {
      rename = true;
      length_renamed = true;
    }
    if (rename) absl::StrAppend(&out, kRenamedPrefix);
    absl::StrAppend(&out, line, "\r\n");
  }
  if (length_renamed) absl::StrAppend(&out, "Content-Length: ", body_size, "\r\n");
  out += "\r\n";
  return out;
}

}  // namespace crawler::warc_internal
