// The two ways PageRecordToJson (crawler/output.h) writes a record, exposed
// so a test can hold them to the same bytes.
#ifndef CRAWLER_SRC_OUTPUT_PAGE_RECORD_JSON_H_
#define CRAWLER_SRC_OUTPUT_PAGE_RECORD_JSON_H_

#include <optional>
#include <string>

#include "crawler/output.h"

namespace crawler::output_internal {

// Through an nlohmann::ordered_json tree: any record (escapes, invalid UTF-8
// replaced by U+FFFD).
std::string PageRecordToJsonViaTree(const PageRecord& record);

// Written directly, ~5% of a small-page crawl's CPU cheaper (perf, the 20k
// synthetic site): only for records whose strings are printable ASCII without
// '"' or '\' (nothing to escape) and whose fetch_ms is in [0, 1e12) ms;
// nullopt otherwise. Byte for byte what PageRecordToJsonViaTree writes.
std::optional<std::string> PageRecordToJsonDirect(const PageRecord& record);

}  // namespace crawler::output_internal

#endif  // CRAWLER_SRC_OUTPUT_PAGE_RECORD_JSON_H_
