// Counts, sizes and durations: every accepted form and the strictness rules
// of crawler/counts.h (our own grammar; no external source of truth).
#include "crawler/counts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>

namespace crawler {
namespace {

using ::testing::HasSubstr;

TEST(ParseCount, AcceptsPlainUnderscoreAndScientificForms) {
  EXPECT_EQ(*ParseCount("0"), 0u);
  EXPECT_EQ(*ParseCount("1000000"), 1'000'000u);
  EXPECT_EQ(*ParseCount("1_000_000"), 1'000'000u);
  EXPECT_EQ(*ParseCount("1e9"), 1'000'000'000u);
  EXPECT_EQ(*ParseCount("1E9"), 1'000'000'000u);
  EXPECT_EQ(*ParseCount("2.5e3"), 2'500u);
  EXPECT_EQ(*ParseCount("1e+3"), 1'000u);
  EXPECT_EQ(*ParseCount("15000e-3"), 15u);
  EXPECT_EQ(*ParseCount("007"), 7u);
}

TEST(ParseCount, IsExactUpToTheLargestUint64) {
  EXPECT_EQ(*ParseCount("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(*ParseCount("18_446_744_073_709_551_615"), UINT64_MAX);
  // 2^53 + 1 is not representable as a double; the parser must not round.
  EXPECT_EQ(*ParseCount("9007199254740993"), 9007199254740993u);
  EXPECT_EQ(*ParseCount("9.007199254740993e15"), 9007199254740993u);
}

TEST(ParseCount, RejectsOverflow) {
  for (const char* text : {"18446744073709551616", "1e20", "99999999999999999999999999999999999",
                           "1e400", "1e99999"}) {
    absl::StatusOr<uint64_t> count = ParseCount(text);
    ASSERT_FALSE(count.ok()) << text;
    EXPECT_THAT(count.status().message(), HasSubstr("too large")) << text;
  }
}

TEST(ParseCount, RejectsNegativeWithAClearMessage) {
  absl::StatusOr<uint64_t> count = ParseCount("-5");
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().message(), "-5 is negative");
}

TEST(ParseCount, RejectsFractionsAndJunk) {
  for (const char* text :
       {"",     "1.5", "1e-1", "abc", "12abc", " 12",  "12 ",   "+3",  "1__000", "_1000", "1000_",
        "1._5", "1.",  ".5",   "1e",  "1e+",   "0x10", "1,000", "inf", "nan",    "1 000", "1k"}) {
    absl::StatusOr<uint64_t> count = ParseCount(text);
    EXPECT_FALSE(count.ok()) << "'" << text << "' gave " << count.value_or(0);
  }
  EXPECT_EQ(ParseCount("1.5").status().message(),
            "'1.5' is not a count (e.g. 1000000, 1_000_000, 1e6)");
}

TEST(ParseBytes, AcceptsBinaryDecimalAndPlainForms) {
  EXPECT_EQ(*ParseBytes("1048576"), 1048576u);
  EXPECT_EQ(*ParseBytes("1_048_576"), 1048576u);
  EXPECT_EQ(*ParseBytes("64MiB"), 64u << 20);
  EXPECT_EQ(*ParseBytes("64 MiB"), 64u << 20);
  EXPECT_EQ(*ParseBytes("1GiB"), 1u << 30);
  EXPECT_EQ(*ParseBytes("3TiB"), 3ull << 40);
  EXPECT_EQ(*ParseBytes("512KiB"), 512u << 10);
  EXPECT_EQ(*ParseBytes("10MB"), 10'000'000u);
  EXPECT_EQ(*ParseBytes("2kB"), 2'000u);
  EXPECT_EQ(*ParseBytes("2KB"), 2'000u);
  EXPECT_EQ(*ParseBytes("1GB"), 1'000'000'000u);
  EXPECT_EQ(*ParseBytes("2TB"), 2'000'000'000'000u);
  EXPECT_EQ(*ParseBytes("100B"), 100u);
  EXPECT_EQ(*ParseBytes("1.5KiB"), 1536u);
  EXPECT_EQ(*ParseBytes("1e6"), 1'000'000u);
  EXPECT_EQ(*ParseBytes("0"), 0u);
}

TEST(ParseBytes, RejectsUnknownUnitsFractionsOfBytesAndOverflow) {
  for (const char* text : {"", "MiB", "64mib", "64Mb", "64 ", "64  MiB", "64XB", "1.5B", "0.3KiB",
                           "-1MiB", "64MiB ", "16EiB", "20000000TiB", "1e30B", "ten MB"}) {
    absl::StatusOr<uint64_t> bytes = ParseBytes(text);
    EXPECT_FALSE(bytes.ok()) << "'" << text << "' gave " << bytes.value_or(0);
  }
  EXPECT_EQ(ParseBytes("64XB").status().message(),
            "'64XB' is not a size (e.g. 1048576, 64MiB, 10MB)");
  EXPECT_EQ(ParseBytes("-1MiB").status().message(), "-1MiB is negative");
  EXPECT_EQ(ParseBytes("20000000TiB").status().message(), "20000000TiB is too large");
}

TEST(ParseDuration, AcceptsEveryUnitAndBareSeconds) {
  EXPECT_DOUBLE_EQ(*ParseDuration("0"), 0.0);
  EXPECT_DOUBLE_EQ(*ParseDuration("1.5"), 1.5);
  EXPECT_DOUBLE_EQ(*ParseDuration("1s"), 1.0);
  EXPECT_DOUBLE_EQ(*ParseDuration("2m"), 120.0);
  EXPECT_DOUBLE_EQ(*ParseDuration("2min"), 120.0);
  EXPECT_DOUBLE_EQ(*ParseDuration("1h"), 3600.0);
  EXPECT_DOUBLE_EQ(*ParseDuration("250us"), 0.00025);
  EXPECT_DOUBLE_EQ(*ParseDuration("1_500ms"), 1.5);
  EXPECT_DOUBLE_EQ(*ParseDuration("1.5 s"), 1.5);
  // Exactly the double nearest 0.2, as the literal 0.2 is.
  EXPECT_EQ(*ParseDuration("200ms"), 0.2);
  EXPECT_EQ(*ParseDuration("0.01"), 0.01);
}

TEST(ParseDuration, RejectsNegativeJunkAndUnknownUnits) {
  for (const char* text : {"", "s", "-1s", "-0.5", "1w", "1 sec", "1ss", "1.s", "abc", "1e400",
                           "inf", "nan", "1,5", " 1s", "1s "}) {
    absl::StatusOr<double> seconds = ParseDuration(text);
    EXPECT_FALSE(seconds.ok()) << "'" << text << "' gave " << seconds.value_or(-1);
  }
  EXPECT_EQ(ParseDuration("-1s").status().message(), "-1s is negative");
  EXPECT_EQ(ParseDuration("1w").status().message(),
            "'1w' is not a duration (e.g. 200ms, 1s, 1.5, 2m)");
}

// Days, for --revisit-max.
TEST(ParseDuration, DaysAreADayOfSeconds) {
  EXPECT_EQ(*ParseDuration("30d"), 30 * 86400.0);
  EXPECT_EQ(*ParseDuration("0.5d"), 43200.0);
}

// Inserts "_" every three digits from the right: 1234567 -> 1_234_567.
std::string WithUnderscores(const std::string& digits) {
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += '_';
    out += digits[i];
  }
  return out;
}

TEST(ParseCount, RoundTripsRandomValuesInEveryForm) {
  std::mt19937_64 random(20261122);  // fixed seed: the same values every run
  for (int i = 0; i < 20'000; ++i) {
    // Log-uniform magnitudes, so short and long numbers are both common.
    uint64_t value = random() >> (random() % 64);
    std::string digits = std::to_string(value);
    ASSERT_EQ(*ParseCount(digits), value) << digits;
    ASSERT_EQ(*ParseCount(WithUnderscores(digits)), value) << WithUnderscores(digits);
    // d.ddd...eN with every digit kept is exact, whatever the length.
    std::string scientific = digits.substr(0, 1);
    if (digits.size() > 1) scientific += "." + digits.substr(1);
    scientific += "e" + std::to_string(digits.size() - 1);
    ASSERT_EQ(*ParseCount(scientific), value) << scientific;
  }
}

TEST(ParseBytes, MatchesTheUnitArithmeticForRandomValues) {
  std::mt19937_64 random(7);
  for (int i = 0; i < 10'000; ++i) {
    uint64_t value = random() % 1'000'000;
    std::string text = std::to_string(value);
    ASSERT_EQ(*ParseBytes(text + "KiB"), value << 10);
    ASSERT_EQ(*ParseBytes(text + "MiB"), value << 20);
    ASSERT_EQ(*ParseBytes(text + "MB"), value * 1'000'000);
    ASSERT_EQ(*ParseBytes(text + " GiB"), value << 30);
  }
}

TEST(Parsers, RandomBytesNeverCrashAndRejectNonNumbers) {
  std::mt19937_64 random(99);
  constexpr char kAlphabet[] = "0123456789_.eE+-kKMGTiBmsuhn \t\x00\xff";
  for (int i = 0; i < 50'000; ++i) {
    std::string text;
    size_t length = random() % 12;
    for (size_t j = 0; j < length; ++j) text += kAlphabet[random() % (sizeof kAlphabet - 1)];
    absl::StatusOr<uint64_t> count = ParseCount(text);
    absl::StatusOr<uint64_t> bytes = ParseBytes(text);
    absl::StatusOr<double> seconds = ParseDuration(text);
    // Anything accepted starts with a digit and has no blank at either end.
    for (bool accepted : {count.ok(), bytes.ok(), seconds.ok()}) {
      if (!accepted) continue;
      ASSERT_FALSE(text.empty());
      EXPECT_TRUE(text.front() >= '0' && text.front() <= '9') << text;
      EXPECT_NE(text.back(), ' ') << text;
    }
    if (seconds.ok()) {
      EXPECT_GE(*seconds, 0.0) << text;
    }
  }
}

}  // namespace
}  // namespace crawler
