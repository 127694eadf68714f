// Strict counts, byte sizes and durations; see crawler/counts.h.
#include "crawler/counts.h"

#include <array>
#include <string>

#include "absl/status/status.h"
#include "config/decimal.h"
#include "config/strings.h"

namespace crawler {

using config_internal::Append;
using config_internal::Cat;
namespace {

using config_internal::Decimal;
using config_internal::ParseDecimal;
using config_internal::ToDouble;
using config_internal::ToWhole;

struct ByteUnit {
  std::string_view suffix;
  uint64_t bytes;
};

// seconds = value * multiply / divide; dividing for sub-second units keeps
// "200ms" exactly the double nearest 0.2 (one rounding instead of two).
struct TimeUnit {
  std::string_view suffix;
  double multiply;
  double divide;
};

constexpr uint64_t kKiB = 1024;
// Longest suffixes first so "MiB" is not read as "B" after junk.
constexpr std::array<ByteUnit, 10> kByteUnits = {{{"KiB", kKiB},
                                                  {"MiB", kKiB* kKiB},
                                                  {"GiB", kKiB* kKiB* kKiB},
                                                  {"TiB", kKiB* kKiB* kKiB* kKiB},
                                                  {"kB", 1'000},
                                                  {"KB", 1'000},
                                                  {"MB", 1'000'000},
                                                  {"GB", 1'000'000'000},
                                                  {"TB", 1'000'000'000'000},
                                                  {"B", 1}}};
// "ms" and "min" before "m" and "s".
constexpr std::array<TimeUnit, 7> kTimeUnits = {{{"min", 60, 1},
                                                 {"us", 1, 1e6},
                                                 {"ms", 1, 1e3},
                                                 {"s", 1, 1},
                                                 {"m", 60, 1},
                                                 {"h", 3600, 1},
                                                 {"d", 86400, 1}}};

// Splits "64 MiB" into the number "64" and the matching unit (null if none).
template <typename UnitT, size_t N>
std::string_view SplitUnit(std::string_view text, const std::array<UnitT, N>& units,
                           const UnitT** unit) {
  for (const UnitT& candidate : units) {
    if (text.size() > candidate.suffix.size() && text.ends_with(candidate.suffix)) {
      *unit = &candidate;
      std::string_view number = text.substr(0, text.size() - candidate.suffix.size());
      if (number.ends_with(' ')) number.remove_suffix(1);
      return number;
    }
  }
  *unit = nullptr;
  return text;
}

absl::Status Explain(std::string_view text, const absl::Status& why, std::string_view expected) {
  std::string_view reason = config_internal::Std(why.message());
  if (reason == "negative") return absl::InvalidArgumentError(Cat(text, " is negative"));
  if (reason == "too large" || reason == "out of range" || reason == "exponent out of range") {
    return absl::InvalidArgumentError(Cat(text, " is too large"));
  }
  return absl::InvalidArgumentError(Cat("'", text, "' is not ", expected));
}

}  // namespace

absl::StatusOr<uint64_t> ParseCount(std::string_view text) {
  constexpr std::string_view kExpected = "a count (e.g. 1000000, 1_000_000, 1e6)";
  absl::StatusOr<Decimal> number = ParseDecimal(text);
  if (!number.ok()) return Explain(text, number.status(), kExpected);
  absl::StatusOr<uint64_t> whole = ToWhole(*number, 1);
  if (!whole.ok()) return Explain(text, whole.status(), kExpected);
  return *whole;
}

absl::StatusOr<uint64_t> ParseBytes(std::string_view text) {
  constexpr std::string_view kExpected = "a size (e.g. 1048576, 64MiB, 10MB)";
  const ByteUnit* unit = nullptr;
  std::string_view digits = SplitUnit(text, kByteUnits, &unit);
  absl::StatusOr<Decimal> number = ParseDecimal(digits);
  if (!number.ok()) return Explain(text, number.status(), kExpected);
  uint64_t multiplier = unit == nullptr ? 1 : unit->bytes;
  absl::StatusOr<uint64_t> bytes = ToWhole(*number, multiplier);
  if (!bytes.ok()) return Explain(text, bytes.status(), kExpected);
  return *bytes;
}

absl::StatusOr<double> ParseDuration(std::string_view text) {
  constexpr std::string_view kExpected = "a duration (e.g. 200ms, 1s, 1.5, 2m)";
  const TimeUnit* unit = nullptr;
  std::string_view digits = SplitUnit(text, kTimeUnits, &unit);
  absl::StatusOr<Decimal> number = ParseDecimal(digits);
  if (!number.ok()) return Explain(text, number.status(), kExpected);
  absl::StatusOr<double> value = ToDouble(*number);
  if (!value.ok()) return Explain(text, value.status(), kExpected);
  double seconds = unit == nullptr ? *value : *value * unit->multiply / unit->divide;
  if (seconds > 1e12) return Explain(text, absl::InvalidArgumentError("too large"), kExpected);
  return seconds;
}

}  // namespace crawler
