// Retry-After parsing. Seconds are a run of digits (RFC 9110: delay-seconds
// = 1*DIGIT); huge values saturate instead of overflowing, the cap is the
// policy's business. Dates go through absl::ParseTime with the three formats
// HTTP allows recipients to accept.
#include "crawler/retry_after.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace crawler {
namespace {

std::optional<absl::Duration> ParseSeconds(absl::string_view text) {
  if (text.empty() || !absl::ascii_isdigit(static_cast<unsigned char>(text[0]))) {
    return std::nullopt;
  }
  int64_t seconds = 0;
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    seconds = seconds > 1'000'000'000 ? seconds : seconds * 10 + (c - '0');
  }
  return absl::Seconds(seconds);
}

std::optional<absl::Time> ParseHttpDate(absl::string_view text) {
  // IMF-fixdate, then RFC 850, then asctime (RFC 9110 section 5.6.7).
  static constexpr const char* kFormats[] = {"%a, %d %b %Y %H:%M:%S GMT",
                                             "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"};
  for (const char* format : kFormats) {
    absl::Time time;
    std::string error;
    if (absl::ParseTime(format, std::string(text), absl::UTCTimeZone(), &time, &error)) {
      return time;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<absl::Duration> ParseRetryAfter(std::string_view value, absl::Time now) {
  const absl::string_view text = absl::StripAsciiWhitespace({value.data(), value.size()});
  if (std::optional<absl::Duration> seconds = ParseSeconds(text)) return seconds;
  std::optional<absl::Time> date = ParseHttpDate(text);
  if (!date.has_value()) return std::nullopt;
  return *date > now ? *date - now : absl::ZeroDuration();
}

std::optional<absl::Duration> RetryAfterFromHeaders(std::string_view headers, absl::Time now) {
  std::optional<absl::string_view> value;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(headers.data(), headers.size()), '\n')) {
    line = absl::StripTrailingAsciiWhitespace(line);
    if (absl::StartsWithIgnoreCase(line, "HTTP/")) value.reset();  // a new response begins
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    if (absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(line.substr(0, colon)), "retry-after")) {
      value = line.substr(colon + 1);
    }
  }
  if (!value.has_value()) return std::nullopt;
  return ParseRetryAfter(std::string_view(value->data(), value->size()), now);
}

}  // namespace crawler
