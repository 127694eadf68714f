// An RFC 3339 UTC timestamp with milliseconds, "2026-11-26T07:33:22.529Z", as
// absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", t, absl::UTCTimeZone()) writes it,
// for the fetched_at of every pages.jsonl record. absl goes through its
// time-zone machinery and a strftime-like parser of the format for each call,
// ~1% of a small-page crawl's CPU; this is a few divisions.
//
// Threading: a pure function.
#ifndef CRAWLER_SRC_OUTPUT_RFC3339_H_
#define CRAWLER_SRC_OUTPUT_RFC3339_H_

#include <string>

#include "absl/time/time.h"

namespace crawler::output_internal {

// Byte for byte absl's string for any time of the years 1970 to 9999
// (milliseconds truncated, as %E3S does); times outside are handed to absl.
std::string Rfc3339Millis(absl::Time t);

}  // namespace crawler::output_internal

#endif  // CRAWLER_SRC_OUTPUT_RFC3339_H_
