// Decimal: the one strict number grammar behind counts, sizes and durations.
//
//   number := digits ["." digits] [("e" | "E") ["+" | "-"] digits]
//   digits := digit {["_"] digit}
//
// Kept as an exact integer mantissa and a power of ten, so "1e9" and
// "2.5e3" convert to whole numbers without floating-point rounding, and a
// fraction that is not whole ("1.5" as a count) is detected exactly.
// Threading: pure functions, safe from any thread.
#ifndef CRAWLER_SRC_CONFIG_DECIMAL_H_
#define CRAWLER_SRC_CONFIG_DECIMAL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace crawler::config_internal {

struct Decimal {
  unsigned __int128 mantissa = 0;  // all digits, "_" and "." removed
  int exponent = 0;                // value = mantissa * 10^exponent
  std::string plain;               // the text without "_", for std::from_chars
};

// Parses the whole of `text` by the grammar above. The error says what is
// wrong without quoting the text (callers add the input and the flag).
absl::StatusOr<Decimal> ParseDecimal(std::string_view text);

// mantissa * 10^exponent * multiplier as a uint64_t: an error when it is not
// a whole number or does not fit.
absl::StatusOr<uint64_t> ToWhole(const Decimal& number, uint64_t multiplier);

// The nearest double (correctly rounded); an error when out of range.
absl::StatusOr<double> ToDouble(const Decimal& number);

}  // namespace crawler::config_internal

#endif  // CRAWLER_SRC_CONFIG_DECIMAL_H_
