// The text of a WARC 1.1 record: version line, named fields, Content-Length,
// an empty line, the block and the two CRLFs that end every record.
// Thread-safe (NewRecordId draws from OpenSSL's thread-safe RNG).
#ifndef CRAWLER_SRC_WARC_RECORD_H_
#define CRAWLER_SRC_WARC_RECORD_H_

#include <chrono>
#include <string>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"

namespace crawler::warc_internal {

// Names and values are borrowed for the call (no string copied per field);
// a record has at most ~10 fields, so the list lives on the stack.
using WarcFields = absl::InlinedVector<std::pair<absl::string_view, absl::string_view>, 12>;

// "<urn:uuid:xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx>", a random (v4) UUID.
std::string NewRecordId();

// "2026-11-22T14:41:44.123456Z": UTC, microseconds (WARC 1.1 allows a
// fraction; it orders the request and response of one fetch).
std::string FormatWarcDate(std::chrono::system_clock::time_point time);

// Appends the whole record to `*out`; the block is `block_head` followed by
// `block_tail` (HTTP headers and body, without joining them first).
// Content-Length is added. Appending lets the caller keep one buffer per
// thread: a fresh 6 KB string per record went through glibc's large-chunk
// bins (consolidation, unlink_chunk) on every page.
void AppendRecord(const WarcFields& fields, absl::string_view block_head,
                  absl::string_view block_tail, std::string* out);

}  // namespace crawler::warc_internal

#endif  // CRAWLER_SRC_WARC_RECORD_H_
