// ReadSeedsFile: the seeds file, line by line; see crawler/seeds.h. Reads the
// whole file at once and walks it with find('\n'), so a million seeds take
// well under a second (the cost is the URL check per line).
#include "crawler/seeds.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "config/read_file.h"
#include "config/seed_check.h"
#include "config/strings.h"

namespace crawler {

using config_internal::Append;
using config_internal::Cat;
namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
// Longer bad lines are cut in the report; the line number finds the rest.
constexpr size_t kQuotedMax = 120;

absl::Status CheckNotBinary(const std::string& path, std::string_view bytes) {
  const void* nul = std::memchr(bytes.data(), '\0', bytes.size());
  if (nul == nullptr) return absl::OkStatus();
  size_t offset = static_cast<size_t>(static_cast<const char*>(nul) - bytes.data());
  size_t line = 1 + static_cast<size_t>(std::count(bytes.begin(), bytes.begin() + offset, '\n'));
  return absl::InvalidArgumentError(
      Cat(path, ":", line, ": a NUL byte; this looks like a binary file, not one URL per line"));
}

std::string Problem(const std::string& path, size_t line_number, std::string_view line,
                    const absl::Status& why) {
  std::string quoted = absl::CEscape(config_internal::Absl(line.substr(0, kQuotedMax)));
  if (line.size() > kQuotedMax) quoted += "...";
  std::string problem = Cat(path, ":", line_number, ": '", quoted, "' is not an http(s) URL");
  if (!why.message().empty()) Append(&problem, " (", why.message(), ")");
  return problem;
}

// A URL never contains raw whitespace (it would be percent-encoded), so the
// first blank ends it: what follows may only be a "# comment". Returns the URL
// part, or an error for other text after it.
absl::StatusOr<std::string_view> CutTrailingComment(std::string_view line) {
  // A plain loop: find_first_of(" \t") calls memchr once per character.
  size_t blank = 0;
  while (blank < line.size() && line[blank] != ' ' && line[blank] != '\t') ++blank;
  if (blank == line.size()) return line;
  std::string_view rest = config_internal::Std(
      absl::StripLeadingAsciiWhitespace(config_internal::Absl(line.substr(blank))));
  if (rest.starts_with('#')) return line.substr(0, blank);
  return absl::InvalidArgumentError("contains whitespace; one URL per line");
}

absl::Status CheckLine(std::string_view line, std::string_view* url) {
  absl::StatusOr<std::string_view> cut = CutTrailingComment(line);
  if (!cut.ok()) return cut.status();
  *url = *cut;
  return config_internal::CheckSeedUrl(*url);
}

}  // namespace

absl::StatusOr<SeedsReport> ReadSeedsFile(const std::string& file, bool strict) {
  absl::StatusOr<std::string> bytes =
      config_internal::ReadWholeFile(file, config_internal::kMaxSeedsFileBytes, "a seeds file");
  const std::string path = file == "-" ? "stdin" : file;  // how messages name it
  if (!bytes.ok()) return bytes.status();
  std::string_view text = *bytes;
  absl::Status binary = CheckNotBinary(path, text);
  if (!binary.ok()) return binary;
  if (text.starts_with(kByteOrderMark)) text.remove_prefix(kByteOrderMark.size());

  SeedsReport report;
  size_t line_number = 0;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = config_internal::Std(
        absl::StripAsciiWhitespace(config_internal::Absl(text.substr(0, end))));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++line_number;
    if (line.empty() || line.front() == '#') continue;
    std::string_view url;
    absl::Status valid = CheckLine(line, &url);
    if (valid.ok()) {
      report.urls.emplace_back(url);
      continue;
    }
    std::string problem = Problem(path, line_number, line, valid);
    if (strict) return absl::InvalidArgumentError(problem);
    report.problems.push_back(std::move(problem));
  }
  return report;
}

}  // namespace crawler
