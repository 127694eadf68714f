#include "output/rfc3339.h"

#include <cstdint>

namespace crawler::output_internal {
namespace {

// 10000-01-01T00:00:00Z: past it the year has five digits.
constexpr int64_t kYear10000UnixMillis = int64_t{253402300800} * 1000;

struct CivilDate {
  int64_t year;
  int month;  // 1-12
  int day;    // 1-31
};

// Days since 1970-01-01 (>= 0) to a proleptic Gregorian date: Howard
// Hinnant's civil_from_days, which counts 400-year eras from 0000-03-01 so
// that the leap day ends each year.
CivilDate CivilFromDays(int64_t days) {
  days += 719468;                                  // days from 0000-03-01
  const int64_t era = days / 146097;               // 400-year eras
  const int64_t day_of_era = days - era * 146097;  // [0, 146096]
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t month_from_march = (5 * day_of_year + 2) / 153;  // [0, 11], 0 = March
  const int day = static_cast<int>(day_of_year - (153 * month_from_march + 2) / 5 + 1);
  const int month =
      static_cast<int>(month_from_march < 10 ? month_from_march + 3 : month_from_march - 9);
  return {year_of_era + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

// `value` as exactly `width` decimal digits, at `out`.
void PutRfc3339Digits(char* out, int64_t value, int width) {
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
}

}  // namespace

std::string Rfc3339Millis(absl::Time t) {
  const int64_t millis = absl::ToUnixMillis(t);  // rounds toward the past, as %E3S
  if (millis < 0 || millis >= kYear10000UnixMillis) {
    return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", t, absl::UTCTimeZone());
  }
  const int64_t seconds = millis / 1000;
  const int64_t second_of_day = seconds % 86400;
  const CivilDate date = CivilFromDays(seconds / 86400);
  std::string out = "0000-00-00T00:00:00.000Z";
  PutRfc3339Digits(&out[0], date.year, 4);
  PutRfc3339Digits(&out[5], date.month, 2);
  PutRfc3339Digits(&out[8], date.day, 2);
  PutRfc3339Digits(&out[11], second_of_day / 3600, 2);
  PutRfc3339Digits(&out[14], second_of_day / 60 % 60, 2);
  PutRfc3339Digits(&out[17], second_of_day % 60, 2);
  PutRfc3339Digits(&out[20], millis % 1000, 3);
  return out;
}

}  // namespace crawler::output_internal
