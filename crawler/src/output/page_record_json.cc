// PageRecord -> one JSON line. nlohmann::json escapes control characters and
// rejects invalid UTF-8 by throwing; URLs from the wild can carry anything, so
// strings are dumped with the `replace` error handler (U+FFFD) and nothing throws.
#include <string>

#include "absl/time/time.h"
#include "crawler/output.h"
#include "nlohmann/json.hpp"

namespace crawler {
namespace {

nlohmann::json NullIfEmpty(const std::string& s) {
  if (s.empty()) return nullptr;
  return s;
}

std::string Rfc3339(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", t, absl::UTCTimeZone());
}

}  // namespace

std::string PageRecordToJson(const PageRecord& r) {
  nlohmann::ordered_json j;
  j["url"] = r.url;
  j["final_url"] = r.final_url.empty() ? r.url : r.final_url;
  j["status"] = r.status;
  j["content_type"] = NullIfEmpty(r.content_type);
  j["bytes"] = r.bytes;
  j["depth"] = r.depth;
  j["parent"] = NullIfEmpty(r.parent);
  j["fetched_at"] = Rfc3339(r.fetched_at);
  // Milliseconds with microsecond resolution is plenty and keeps lines short.
  j["fetch_ms"] = static_cast<double>(static_cast<int64_t>(r.fetch_ms * 1000)) / 1000;
  j["links_found"] = r.links_found;
  j["links_new"] = r.links_new;
  if (!r.redirect_to.empty()) j["redirect_to"] = r.redirect_to;
  j["error"] = NullIfEmpty(r.error);
  j["attempts"] = r.attempts;
  if (r.truncated) {
    j["truncated"] = true;
    j["parsed_bytes"] = r.parsed_bytes;
    j["truncated_reason"] = NullIfEmpty(r.truncated_reason);
  }
  if (!r.warc_file.empty()) {
    j["warc_file"] = r.warc_file;
    j["warc_offset"] = r.warc_offset;
  }
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string ErrorKind(const std::string& error) {
  const auto colon = error.find(':');
  return colon == std::string::npos ? error : error.substr(0, colon);
}

}  // namespace crawler
