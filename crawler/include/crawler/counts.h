// Strict parsers for the numbers people type in flags and config files:
// counts ("1e9", "1000000", "1_000_000"), byte sizes ("64MiB", "10MB",
// "1048576") and durations ("200ms", "1s", "1.5", "2m").
//
//   absl::StatusOr<uint64_t> n = crawler::ParseCount("1_000_000");  // 1000000
//   absl::StatusOr<uint64_t> b = crawler::ParseBytes("64MiB");       // 67108864
//   absl::StatusOr<double> s = crawler::ParseDuration("200ms");      // 0.2
//
// "Strict" means: the whole text must be consumed, no sign, no surrounding
// junk, underscores only between digits, and the value must fit. The error
// message quotes the input and says what was expected; the caller prefixes the
// flag or key. Threading: pure functions, safe from any thread.
#ifndef CRAWLER_COUNTS_H_
#define CRAWLER_COUNTS_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace crawler {

// A non-negative whole number: digits with optional "_" separators, or a
// decimal in scientific notation whose value is whole ("1e9", "2.5e3").
// Negative numbers, fractions ("1.5") and values above 2^64-1 are errors.
absl::StatusOr<uint64_t> ParseCount(std::string_view text);

// A byte size: a count, optionally followed (optionally after one space) by a
// unit: B; kB/KB, MB, GB, TB (powers of 1000); KiB, MiB, GiB, TiB (powers of
// 1024). A fraction is allowed with a unit when the result is whole bytes
// ("1.5KiB" = 1536).
absl::StatusOr<uint64_t> ParseBytes(std::string_view text);

// A duration in seconds: a non-negative decimal, optionally followed by a
// unit: us, ms, s, m (minutes), h, d (days: revisit intervals). No unit means seconds ("1.5" = 1.5
// s).
absl::StatusOr<double> ParseDuration(std::string_view text);

}  // namespace crawler

#endif  // CRAWLER_COUNTS_H_
