#include "config/decimal.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "absl/status/status.h"

namespace crawler::config_internal {
namespace {

using uint128 = unsigned __int128;

// 38 decimal digits always fit in 128 bits (10^38 < 2^127).
constexpr int kMaxMantissaDigits = 38;
// Far beyond any useful value; keeps the exponent arithmetic trivially safe.
constexpr int kMaxExponent = 400;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads `digit {["_"] digit}` at text[*pos]; appends the digits to `number`.
// Returns the count of digits read, or -1 for a misplaced underscore.
int ReadDigits(std::string_view text, size_t* pos, Decimal* number, int* significant) {
  int count = 0;
  while (*pos < text.size()) {
    char c = text[*pos];
    if (c == '_') {
      bool between_digits = count > 0 && *pos + 1 < text.size() && IsDigit(text[*pos + 1]);
      if (!between_digits) return -1;
      ++*pos;
      continue;
    }
    if (!IsDigit(c)) break;
    number->plain.push_back(c);
    if (number->mantissa != 0 || c != '0') ++*significant;
    if (*significant > kMaxMantissaDigits) return count + 1;  // caught by caller
    number->mantissa = number->mantissa * 10 + static_cast<uint128>(c - '0');
    ++count;
    ++*pos;
  }
  return count;
}

absl::StatusOr<int> ReadExponent(std::string_view text, size_t* pos, Decimal* number) {
  number->plain.push_back('e');
  ++*pos;
  bool negative = false;
  if (*pos < text.size() && (text[*pos] == '+' || text[*pos] == '-')) {
    negative = text[*pos] == '-';
    number->plain.push_back(text[*pos]);
    ++*pos;
  }
  int value = 0;
  size_t start = *pos;
  while (*pos < text.size() && IsDigit(text[*pos])) {
    value = value * 10 + (text[*pos] - '0');
    if (value > kMaxExponent) return absl::InvalidArgumentError("exponent out of range");
    number->plain.push_back(text[*pos]);
    ++*pos;
  }
  if (*pos == start) return absl::InvalidArgumentError("missing exponent digits");
  return negative ? -value : value;
}

}  // namespace

absl::StatusOr<Decimal> ParseDecimal(std::string_view text) {
  Decimal number;
  size_t pos = 0;
  int significant = 0;
  if (!text.empty() && text[0] == '-') return absl::InvalidArgumentError("negative");
  int whole_digits = ReadDigits(text, &pos, &number, &significant);
  if (whole_digits <= 0) return absl::InvalidArgumentError("not a number");
  if (pos < text.size() && text[pos] == '.') {
    number.plain.push_back('.');
    ++pos;
    int fraction_digits = ReadDigits(text, &pos, &number, &significant);
    if (fraction_digits <= 0) return absl::InvalidArgumentError("not a number");
    number.exponent -= fraction_digits;
  }
  if (significant > kMaxMantissaDigits) return absl::InvalidArgumentError("too many digits");
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    absl::StatusOr<int> exponent = ReadExponent(text, &pos, &number);
    if (!exponent.ok()) return exponent.status();
    number.exponent += *exponent;
  }
  if (pos != text.size()) return absl::InvalidArgumentError("not a number");
  return number;
}

absl::StatusOr<uint64_t> ToWhole(const Decimal& number, uint64_t multiplier) {
  constexpr uint128 kMax = std::numeric_limits<uint64_t>::max();
  uint128 value = number.mantissa;
  if (value != 0 && multiplier > std::numeric_limits<uint128>::max() / value) {
    return absl::InvalidArgumentError("too large");
  }
  value *= multiplier;
  for (int e = number.exponent; e < 0; ++e) {
    if (value % 10 != 0) return absl::InvalidArgumentError("not a whole number");
    value /= 10;
  }
  for (int e = 0; e < number.exponent && value != 0; ++e) {
    value *= 10;
    if (value > kMax) return absl::InvalidArgumentError("too large");
  }
  if (value > kMax) return absl::InvalidArgumentError("too large");
  return static_cast<uint64_t>(value);
}

absl::StatusOr<double> ToDouble(const Decimal& number) {
  double value = 0;
  const char* end = number.plain.data() + number.plain.size();
  auto [ptr, error] = std::from_chars(number.plain.data(), end, value);
  if (error != std::errc() || ptr != end || !std::isfinite(value)) {
    return absl::InvalidArgumentError("out of range");
  }
  return value;
}

}  // namespace crawler::config_internal
