// The robots.txt tokenizer: bytes to records (RFC 9309 2.1 and 2.2), handed
// to a RobotsParseHandler.
#include <cstddef>
#include <string_view>

#include "crawler/robots.h"
#include "robots/record_key.h"

namespace crawler {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

// The first `max_bytes` of `text` without a UTF-8 BOM, cut back to the end of
// the last whole line when the limit falls inside one.
std::string_view ParsedPart(std::string_view text, size_t max_bytes) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  if (text.size() <= max_bytes) return text;
  std::string_view kept = text.substr(0, max_bytes);
  const char next = text[max_bytes];
  if (next == '\n' || next == '\r') return kept;
  const size_t last_end = kept.find_last_of("\r\n");
  return last_end == std::string_view::npos ? std::string_view() : kept.substr(0, last_end + 1);
}

// Splits one comment-free, trimmed line into key and value. Returns false for
// lines that are no record.
bool SplitRecord(std::string_view line, std::string_view* key, std::string_view* value) {
  size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    *key = Trim(line.substr(0, colon));
    *value = Trim(line.substr(colon + 1));
    return !key->empty();
  }
  // google/robotstxt reads "Disallow /x" (colon forgotten) when the line is
  // exactly two words; anything longer is too ambiguous to guess.
  size_t gap = line.find_first_of(" \t");
  if (gap == std::string_view::npos) return false;
  *key = line.substr(0, gap);
  *value = Trim(line.substr(gap));
  return !value->empty() && value->find_first_of(" \t") == std::string_view::npos;
}

std::string_view ProductToken(std::string_view value) {
  if (!value.empty() && value[0] == '*' && (value.size() == 1 || IsBlank(value[1]))) {
    return value.substr(0, 1);
  }
  size_t end = 0;
  while (end < value.size() && robots_internal::IsProductTokenChar(value[end])) ++end;
  return value.substr(0, end);
}

void Dispatch(int line_number, std::string_view key, std::string_view value,
              RobotsParseHandler& handler) {
  switch (robots_internal::ClassifyKey(key)) {
    case robots_internal::RecordKey::kUserAgent:
      handler.HandleUserAgent(line_number, ProductToken(value));
      break;
    case robots_internal::RecordKey::kAllow:
      handler.HandleAllow(line_number, value);
      break;
    case robots_internal::RecordKey::kDisallow:
      handler.HandleDisallow(line_number, value);
      break;
    case robots_internal::RecordKey::kSitemap:
      handler.HandleSitemap(line_number, value);
      break;
    case robots_internal::RecordKey::kCrawlDelay:
      handler.HandleCrawlDelay(line_number, value);
      break;
    case robots_internal::RecordKey::kUnknown:
      handler.HandleUnknown(line_number, key, value);
      break;
  }
}

void ParseLine(int line_number, std::string_view line, RobotsParseHandler& handler) {
  line = Trim(line.substr(0, line.find('#')));
  std::string_view key;
  std::string_view value;
  if (line.empty() || !SplitRecord(line, &key, &value)) return;
  Dispatch(line_number, key, value, handler);
}

}  // namespace

void ParseRobotsTxt(std::string_view robots_txt, RobotsParseHandler& handler, size_t max_bytes) {
  std::string_view text = ParsedPart(robots_txt, max_bytes);
  handler.HandleRobotsStart();
  int line_number = 0;
  while (!text.empty()) {
    const size_t end = text.find_first_of("\r\n");
    ParseLine(++line_number, text.substr(0, end), handler);
    if (end == std::string_view::npos) break;
    // CRLF is one line end; a lone CR or LF is one too.
    const size_t skip = text.compare(end, 2, "\r\n") == 0 ? 2 : 1;
    text.remove_prefix(end + skip);
  }
  handler.HandleRobotsEnd();
}

std::string RobotsProductToken(std::string_view user_agent) {
  return std::string(ProductToken(Trim(user_agent)));
}

}  // namespace crawler
