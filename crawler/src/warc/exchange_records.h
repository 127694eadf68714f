// The records of one file and one fetch, as uncompressed WARC text: warcinfo,
// request, response and revisit. Field choices are documented in
// crawler/warc.h. Thread-safe (pure functions).
#ifndef CRAWLER_SRC_WARC_EXCHANGE_RECORDS_H_
#define CRAWLER_SRC_WARC_EXCHANGE_RECORDS_H_

#include <string>

#include "absl/strings/string_view.h"
#include "crawler/warc.h"

namespace crawler::warc_internal {

inline constexpr absl::string_view kRevisitProfile =
    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";

std::string BuildWarcinfo(const WarcOptions& options, absl::string_view filename,
                          absl::string_view date);

// What the request and response records of one exchange share.
struct ExchangeIds {
  std::string date;
  std::string request_id;
  std::string response_id;
};

std::string BuildRequest(const WarcExchange& exchange, const ExchangeIds& ids);

// `http_headers` already rewritten (RewriteResponseHeaders).
std::string BuildResponse(const WarcExchange& exchange, const ExchangeIds& ids,
                          absl::string_view http_headers, const std::string& payload_digest);

// A response whose payload equals the one archived at `original_uri` on
// `original_date`: the HTTP headers only.
std::string BuildRevisit(const WarcExchange& exchange, const ExchangeIds& ids,
                         absl::string_view http_headers, const std::string& payload_digest,
                         const std::string& original_uri, const std::string& original_date);

}  // namespace crawler::warc_internal

#endif  // CRAWLER_SRC_WARC_EXCHANGE_RECORDS_H_
