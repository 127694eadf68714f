// The text of a WARC 1.1 record: version line, named fields, Content-Length,
// an empty line, the block and the two CRLFs that end every record.
// Thread-safe (NewRecordId draws from OpenSSL's thread-safe RNG).
#ifndef CRAWLER_SRC_WARC_RECORD_H_
#define CRAWLER_SRC_WARC_RECORD_H_

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace crawler::warc_internal {

using WarcFields = std::vector<std::pair<absl::string_view, std::string>>;

// "<urn:uuid:xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx>", a random (v4) UUID.
std::string NewRecordId();

// "2026-11-22T14:41:44.123456Z": UTC, microseconds (WARC 1.1 allows a
// fraction; it orders the request and response of one fetch).
std::string FormatWarcDate(std::chrono::system_clock::time_point time);

// The whole record; the block is `block_head` followed by `block_tail`
// (HTTP headers and body, without joining them first). Content-Length is added.
std::string BuildRecord(const WarcFields& fields, absl::string_view block_head,
                        absl::string_view block_tail);

}  // namespace crawler::warc_internal

#endif  // CRAWLER_SRC_WARC_RECORD_H_
