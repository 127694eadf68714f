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
WarcFields CommonFields(absl::string_view type, const std::string& id, const WarcExchange& exchange,
                        const ExchangeIds& ids) {
  WarcFields fields = {{"WARC-Type", std::string(type)},
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
  const WarcFields fields = {{"WARC-Type", "warcinfo"},
                             {"WARC-Record-ID", NewRecordId()},
                             {"WARC-Date", std::string(date)},
                             {"WARC-Filename", std::string(filename)},
                             {"WARC-Block-Digest", WarcSha1({block})},
                             {"Content-Type", "application/warc-fields"}};
  return BuildRecord(fields, block, "");
}

std::string BuildRequest(const WarcExchange& exchange, const ExchangeIds& ids) {
  const std::string block = NormalizeHeaderBlock(exchange.request_headers);
  WarcFields fields = CommonFields("request", ids.request_id, exchange, ids);
  fields.push_back({"WARC-Concurrent-To", ids.response_id});
  fields.push_back({"WARC-Block-Digest", WarcSha1({block})});
  fields.push_back({"Content-Type", "application/http;msgtype=request"});
  return BuildRecord(fields, block, "");
}

std::string BuildResponse(const WarcExchange& exchange, const ExchangeIds& ids,
                          absl::string_view http_headers, const std::string& payload_digest) {
  WarcFields fields = CommonFields("response", ids.response_id, exchange, ids);
  fields.push_back({"WARC-Block-Digest", WarcSha1({http_headers, exchange.body})});
  fields.push_back({"WARC-Payload-Digest", payload_digest});
  if (exchange.truncated) fields.push_back({"WARC-Truncated", "length"});
  fields.push_back({"Content-Type", "application/http;msgtype=response"});
  return BuildRecord(fields, http_headers, exchange.body);
}

std::string BuildRevisit(const WarcExchange& exchange, const ExchangeIds& ids,
                         absl::string_view http_headers, const std::string& payload_digest,
                         const std::string& original_uri, const std::string& original_date) {
  WarcFields fields = CommonFields("revisit", ids.response_id, exchange, ids);
  fields.push_back({"WARC-Profile", std::string(kRevisitProfile)});
  fields.push_back({"WARC-Refers-To-Target-URI", original_uri});
  fields.push_back({"WARC-Refers-To-Date", original_date});
  fields.push_back({"WARC-Block-Digest", WarcSha1({http_headers})});
  fields.push_back({"WARC-Payload-Digest", payload_digest});
  fields.push_back({"Content-Type", "application/http;msgtype=response"});
  return BuildRecord(fields, http_headers, "");
}

}  // namespace crawler::warc_internal
