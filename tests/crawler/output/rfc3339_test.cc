// Rfc3339Millis against its source of truth, absl::FormatTime with the format
// pages.jsonl used before: the same bytes for every time tried.
#include "../../../crawler/src/output/rfc3339.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "absl/time/civil_time.h"

namespace crawler::output_internal {
namespace {

std::string AbslRfc3339(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", t, absl::UTCTimeZone());
}

TEST(Rfc3339Test, WritesUtcWithTruncatedMilliseconds) {
  const absl::Time t =
      absl::FromCivil(absl::CivilSecond(2026, 11, 26, 7, 33, 22), absl::UTCTimeZone()) +
      absl::Microseconds(529'999);
  EXPECT_EQ(Rfc3339Millis(t), "2026-11-26T07:33:22.529Z");
}

TEST(Rfc3339Test, MatchesAbslOnCalendarEdges) {
  // Leap days (2000 is a leap year, 2100 is not), year and month ends, the
  // epoch and the last millisecond before the years get a fifth digit.
  const absl::CivilSecond days[] = {
      absl::CivilSecond(1970, 1, 1, 0, 0, 0),      absl::CivilSecond(1972, 2, 29, 23, 59, 59),
      absl::CivilSecond(1999, 12, 31, 23, 59, 59), absl::CivilSecond(2000, 2, 29, 12, 0, 0),
      absl::CivilSecond(2000, 3, 1, 0, 0, 0),      absl::CivilSecond(2024, 2, 29, 1, 2, 3),
      absl::CivilSecond(2100, 2, 28, 23, 0, 0),    absl::CivilSecond(2100, 3, 1, 0, 0, 1),
      absl::CivilSecond(2400, 2, 29, 0, 0, 0),     absl::CivilSecond(9999, 12, 31, 23, 59, 59)};
  for (const absl::CivilSecond& day : days) {
    for (const int64_t ms : {0, 1, 999}) {
      const absl::Time t = absl::FromCivil(day, absl::UTCTimeZone()) + absl::Milliseconds(ms);
      EXPECT_EQ(Rfc3339Millis(t), AbslRfc3339(t)) << day;
    }
  }
}

TEST(Rfc3339Test, MatchesAbslOnRandomTimes) {
  std::mt19937_64 random(20261126);  // fixed seed
  // Up to the year 10000 and beyond it (absl's own path), at nanosecond grain.
  std::uniform_int_distribution<int64_t> nanos(-int64_t{1} << 60, int64_t{1} << 62);
  for (int i = 0; i < 200'000; ++i) {
    const absl::Time t = absl::FromUnixNanos(nanos(random));
    ASSERT_EQ(Rfc3339Millis(t), AbslRfc3339(t)) << absl::ToUnixNanos(t);
  }
  // Nanoseconds around "now", where every record's time is.
  const int64_t now =
      absl::ToUnixNanos(absl::FromCivil(absl::CivilDay(2026, 1, 1), absl::UTCTimeZone()));
  std::uniform_int_distribution<int64_t> near(0, int64_t{10} * 365 * 86400 * 1'000'000'000);
  for (int i = 0; i < 200'000; ++i) {
    const absl::Time t = absl::FromUnixNanos(now + near(random));
    ASSERT_EQ(Rfc3339Millis(t), AbslRfc3339(t)) << absl::ToUnixNanos(t);
  }
}

}  // namespace
}  // namespace crawler::output_internal
