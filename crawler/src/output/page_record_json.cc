// PageRecord -> one JSON line. nlohmann::json escapes control characters and
// rejects invalid UTF-8 by throwing; URLs from the wild can carry anything, so
// strings are dumped with the `replace` error handler (U+FFFD) and nothing throws.
// Records with nothing to escape (nearly all) are written directly instead,
// to the same bytes (output/page_record_json.h).
#include "output/page_record_json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "crawler/output.h"
#include "nlohmann/json.hpp"
#include "output/rfc3339.h"

namespace crawler {
namespace {

nlohmann::json NullIfEmpty(const std::string& s) {
  if (s.empty()) return nullptr;
  return s;
}

std::string Rfc3339(absl::Time t) { return output_internal::Rfc3339Millis(t); }

// Printable ASCII without '"' and '\': a JSON string's bytes as they are.
bool NeedsNoEscape(const std::string& s) {
  for (const char c : s) {
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
  }
  return true;
}

// An ETag is a quoted string ("\"v1\"", W/"x"): printable ASCII whose only
// character to escape is usually '"'. Written directly, not through the tree.
bool NeedsOnlyQuotesEscaped(const std::string& s) {
  for (const char c : s) {
    if (c < 0x20 || c > 0x7e || c == '\\') return false;
  }
  return true;
}

void AppendKey(std::string& out, std::string_view key) {
  out += out.size() == 1 ? "\"" : ",\"";
  out += key;
  out += "\":";
}

void AppendString(std::string& out, std::string_view key, const std::string& value) {
  AppendKey(out, key);
  out += '"';
  out += value;
  out += '"';
}

// `value` passes NeedsOnlyQuotesEscaped.
void AppendQuotedString(std::string& out, std::string_view key, const std::string& value) {
  AppendKey(out, key);
  out += '"';
  for (const char c : value) {
    if (c == '"') out += '\\';
    out += c;
  }
  out += '"';
}

void AppendStringOrNull(std::string& out, std::string_view key, const std::string& value) {
  if (value.empty()) {
    AppendKey(out, key);
    out += "null";
  } else {
    AppendString(out, key, value);
  }
}

void AppendInt(std::string& out, std::string_view key, int64_t value) {
  AppendKey(out, key);
  out += std::to_string(value);
}

// `thousandths` / 1000 as nlohmann writes a double: the shortest decimal that
// reads back as the same double, which for k / 1000 (k < 2^53 / 1000) is k's
// decimal with the point three places in and trailing zeros dropped, keeping
// one fractional digit ("12.0", "0.591", "4.2").
void AppendThousandths(std::string& out, std::string_view key, int64_t thousandths) {
  AppendKey(out, key);
  out += std::to_string(thousandths / 1000);
  char fraction[4] = {static_cast<char>('0' + thousandths / 100 % 10),
                      static_cast<char>('0' + thousandths / 10 % 10),
                      static_cast<char>('0' + thousandths % 10), 0};
  int digits = 3;
  while (digits > 1 && fraction[digits - 1] == '0') --digits;
  out += '.';
  out.append(fraction, static_cast<size_t>(digits));
}

// The JSON key of a recrawl verdict; "" for none.
std::string_view RevisitKey(Revisit revisit) {
  switch (revisit) {
    case Revisit::kNotModified:
      return "not_modified";
    case Revisit::kUnchanged:
      return "unchanged";
    case Revisit::kChanged:
      return "changed";
    case Revisit::kGone:
      return "gone";
    case Revisit::kCarried:
      return "carried";
    case Revisit::kNone:
    case Revisit::kNew:
      return "";
  }
  return "";
}

// Milliseconds with microsecond resolution is plenty and keeps lines short.
int64_t FetchThousandths(const PageRecord& r) { return static_cast<int64_t>(r.fetch_ms * 1000); }

}  // namespace

namespace output_internal {

std::string PageRecordToJsonViaTree(const PageRecord& r) {
  nlohmann::ordered_json j;
  j["url"] = r.url;
  j["final_url"] = r.final_url.empty() ? r.url : r.final_url;
  // null, not 0, when no response arrived: 0 is no HTTP status.
  if (r.status == 0) {
    j["status"] = nullptr;
  } else {
    j["status"] = r.status;
  }
  j["content_type"] = NullIfEmpty(r.content_type);
  j["bytes"] = r.bytes;
  j["depth"] = r.depth;
  j["parent"] = NullIfEmpty(r.parent);
  j["fetched_at"] = Rfc3339(r.fetched_at);
  j["fetch_ms"] = static_cast<double>(FetchThousandths(r)) / 1000;
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
  if (!r.etag.empty()) j["etag"] = r.etag;
  if (!r.last_modified.empty()) j["last_modified"] = r.last_modified;
  if (!r.digest.empty()) j["digest"] = r.digest;
  if (r.revisit_s > 0) j["revisit_s"] = r.revisit_s;
  if (const std::string_view key = RevisitKey(r.revisit); !key.empty()) j[std::string(key)] = true;
  if (!r.warc_file.empty()) {
    j["warc_file"] = r.warc_file;
    j["warc_offset"] = r.warc_offset;
  }
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::optional<std::string> PageRecordToJsonDirect(const PageRecord& r) {
  const int64_t thousandths = FetchThousandths(r);
  if (thousandths < 0 || thousandths >= int64_t{1'000'000'000'000'000}) return std::nullopt;
  for (const std::string* s :
       {&r.url, &r.final_url, &r.content_type, &r.parent, &r.redirect_to, &r.error,
        &r.truncated_reason, &r.last_modified, &r.digest, &r.warc_file}) {
    if (!NeedsNoEscape(*s)) return std::nullopt;
  }
  if (!NeedsOnlyQuotesEscaped(r.etag)) return std::nullopt;
  std::string out = "{";
  out.reserve(256 + r.url.size() * 2 + r.parent.size());
  AppendString(out, "url", r.url);
  AppendString(out, "final_url", r.final_url.empty() ? r.url : r.final_url);
  if (r.status == 0) {
    AppendKey(out, "status");
    out += "null";
  } else {
    AppendInt(out, "status", r.status);
  }
  AppendStringOrNull(out, "content_type", r.content_type);
  AppendInt(out, "bytes", r.bytes);
  AppendInt(out, "depth", r.depth);
  AppendStringOrNull(out, "parent", r.parent);
  AppendString(out, "fetched_at", Rfc3339(r.fetched_at));
  AppendThousandths(out, "fetch_ms", thousandths);
  AppendInt(out, "links_found", r.links_found);
  AppendInt(out, "links_new", r.links_new);
  if (!r.redirect_to.empty()) AppendString(out, "redirect_to", r.redirect_to);
  AppendStringOrNull(out, "error", r.error);
  AppendInt(out, "attempts", r.attempts);
  if (r.truncated) {
    AppendKey(out, "truncated");
    out += "true";
    AppendInt(out, "parsed_bytes", r.parsed_bytes);
    AppendStringOrNull(out, "truncated_reason", r.truncated_reason);
  }
  if (!r.etag.empty()) AppendQuotedString(out, "etag", r.etag);
  if (!r.last_modified.empty()) AppendString(out, "last_modified", r.last_modified);
  if (!r.digest.empty()) AppendString(out, "digest", r.digest);
  if (r.revisit_s > 0) AppendInt(out, "revisit_s", r.revisit_s);
  if (const std::string_view key = RevisitKey(r.revisit); !key.empty()) {
    AppendKey(out, key);
    out += "true";
  }
  if (!r.warc_file.empty()) {
    AppendString(out, "warc_file", r.warc_file);
    AppendKey(out, "warc_offset");
    out += std::to_string(r.warc_offset);
  }
  out += '}';
  return out;
}

}  // namespace output_internal

std::string PageRecordToJson(const PageRecord& r) {
  std::optional<std::string> direct = output_internal::PageRecordToJsonDirect(r);
  return direct ? *std::move(direct) : output_internal::PageRecordToJsonViaTree(r);
}

std::string ErrorKind(const std::string& error) {
  const auto colon = error.find(':');
  return colon == std::string::npos ? error : error.substr(0, colon);
}

}  // namespace crawler
