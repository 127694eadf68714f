// One gzip member per WARC record: the convention (WARC 1.1 annex D) that lets
// a reader seek to a record's offset and inflate only it. Thread-safe.
#ifndef CRAWLER_SRC_WARC_GZIP_MEMBER_H_
#define CRAWLER_SRC_WARC_GZIP_MEMBER_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace crawler::warc_internal {

// Appends `data` compressed as one complete gzip member to `*out`.
absl::Status AppendGzipMember(absl::string_view data, int level, std::string* out);

}  // namespace crawler::warc_internal

#endif  // CRAWLER_SRC_WARC_GZIP_MEMBER_H_
