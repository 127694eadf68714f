#include "warc/exchange_records.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "warc/digest.h"
#include "warc/http_headers.h"
#include "warc/record.h"

namespace crawler::warc_internal {
namespace {

// The fields every record of an exchange starts with.
WarcFields CommonFields(absl::string_view type, absl::string_view id, const WarcExchange& exchange,
                        const ExchangeIds& ids) {
  WarcFields fields = {{"WARC-Type", type},
                       {"WARC-Record-ID", id},
                       {"WARC-Date", ids.date},
                       {"WARC-Target-URI", exchange.target_uri}};
  if (!exchange.remote_ip.empty()) fields.push_back({"WARC-IP-Address", exchange.remote_ip});
  return fields;
}

// "key: value" lines with CRLF ends, empty lines dropped.
std::string WarcFieldLines(absl::string_view text) {
  std::string out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    absl::ConsumeSuffix(&line, "\r");
    if (!line.empty()) absl::StrAppend(&out, line, "\r\n");
  }
  return out;
}

}  // namespace

std::string BuildWarcinfo(const WarcOptions& options, absl::string_view filename,
                          absl::string_view date) {
  const std::string block = absl::StrCat(
      "software: ", options.software, "\r\nformat: WARC File Format 1.1\r\n",
      "conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/"
      "warc-1.1/\r\n",
      WarcFieldLines(options.warcinfo_fields));
  const std::string id = NewRecordId();
  const std::string digest = WarcSha1({block});
  const WarcFields fields = {
      {"WARC-Type", "warcinfo"},     {"WARC-Record-ID", id},
      {"WARC-Date", date},           {"WARC-Filename", filename},
      {"WARC-Block-Digest", digest}, {"Content-Type", "application/warc-fields"}};
  std::string record;
  AppendRecord(fields, block, "", &record);
  return record;
}

void AppendRequest(const WarcExchange& exchange, const ExchangeIds& ids, std::string* out) {
  const std::string block = NormalizeHeaderBlock(exchange.request_headers);
  const std::string digest = WarcSha1({block});
  WarcFields fields = CommonFields("request", ids.request_id, exchange, ids);
  fields.push_back({"WARC-Concurrent-To", ids.response_id});
  fields.push_back({"WARC-Block-Digest", digest});
  fields.push_back({"Content-Type", "application/http;msgtype=request"});
  AppendRecord(fields, block, "", out);
}

void AppendResponse(const WarcExchange& exchange, const ExchangeIds& ids,
                    absl::string_view http_headers, absl::string_view payload_digest,
                    std::string* out) {
  const std::string block_digest = WarcSha1({http_headers, exchange.body});
  WarcFields fields = CommonFields("response", ids.response_id, exchange, ids);
  fields.push_back({"WARC-Block-Digest", block_digest});
  fields.push_back({"WARC-Payload-Digest", payload_digest});
  if (exchange.truncated) fields.push_back({"WARC-Truncated", "length"});
  fields.push_back({"Content-Type", "application/http;msgtype=response"});
  AppendRecord(fields, http_headers, exchange.body, out);
}

void AppendRevisit(const WarcExchange& exchange, const ExchangeIds& ids,
                   absl::string_view http_headers, absl::string_view payload_digest,
                   absl::string_view original_uri, absl::string_view original_date,
                   std::string* out, absl::string_view profile) {
  const std::string block_digest = WarcSha1({http_headers});
  WarcFields fields = CommonFields("revisit", ids.response_id, exchange, ids);
  fields.push_back({"WARC-Profile", profile});
  fields.push_back({"WARC-Refers-To-Target-URI", original_uri});
  fields.push_back({"WARC-Refers-To-Date", original_date});
  fields.push_back({"WARC-Block-Digest", block_digest});
  if (!payload_digest.empty()) fields.push_back({"WARC-Payload-Digest", payload_digest});
  fields.push_back({"Content-Type", "application/http;msgtype=response"});
  AppendRecord(fields, http_headers, "", out);
}

}  // namespace crawler::warc_internal
