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
inline constexpr absl::string_view kNotModifiedProfile =
    "http://netpreserve.org/warc/1.1/revisit/server-not-modified";

std::string BuildWarcinfo(const WarcOptions& options, absl::string_view filename,
                          absl::string_view date);

// What the request and response records of one exchange share.
struct ExchangeIds {
  std::string date;
  std::string request_id;
  std::string response_id;
};

// The Append* functions append one record's text to `*out`, so the caller
// can keep one buffer per thread (see AppendRecord).
void AppendRequest(const WarcExchange& exchange, const ExchangeIds& ids, std::string* out);

// `http_headers` already rewritten (RewriteResponseHeaders).
void AppendResponse(const WarcExchange& exchange, const ExchangeIds& ids,
                    absl::string_view http_headers, absl::string_view payload_digest,
                    std::string* out);

// A response that stands for the one archived at `original_uri` on
// `original_date` (its payload is equal: `profile` kRevisitProfile; or the
// server said 304: kNotModifiedProfile): the HTTP headers only. An empty
// `payload_digest` is left out.
void AppendRevisit(const WarcExchange& exchange, const ExchangeIds& ids,
                   absl::string_view http_headers, absl::string_view payload_digest,
                   absl::string_view original_uri, absl::string_view original_date,
                   std::string* out, absl::string_view profile = kRevisitProfile);

}  // namespace crawler::warc_internal

#endif  // CRAWLER_SRC_WARC_EXCHANGE_RECORDS_H_
