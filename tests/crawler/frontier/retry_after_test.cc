// Retry-After parsing, per RFC 9110 section 10.2.3 (delay-seconds or an
// HTTP-date in any of the three forms of section 5.6.7).
#include "crawler/retry_after.h"

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

// Sun, 06 Nov 1994 08:49:37 GMT, the RFC's example date.
const absl::Time kRfcDate = absl::FromUnixSeconds(784111777);

TEST(ParseRetryAfter, Rfc9110DelaySeconds) {
  EXPECT_EQ(ParseRetryAfter("120", kRfcDate), absl::Seconds(120));
  EXPECT_EQ(ParseRetryAfter(" 1 ", kRfcDate), absl::Seconds(1));
  EXPECT_EQ(ParseRetryAfter("0", kRfcDate), absl::ZeroDuration());
}

TEST(ParseRetryAfter, HugeSecondsSaturateInsteadOfOverflowing) {
  std::optional<absl::Duration> wait = ParseRetryAfter("99999999999999999999999", kRfcDate);
  ASSERT_TRUE(wait.has_value());
  EXPECT_GT(*wait, absl::Hours(24 * 365));
}

TEST(ParseRetryAfter, Rfc9110ImfFixdate) {
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", kRfcDate - absl::Seconds(30)),
            absl::Seconds(30));
}

TEST(ParseRetryAfter, Rfc9110ObsoleteDateForms) {
  const absl::Time before = kRfcDate - absl::Seconds(5);
  EXPECT_EQ(ParseRetryAfter("Sunday, 06-Nov-94 08:49:37 GMT", before), absl::Seconds(5));
  EXPECT_EQ(ParseRetryAfter("Sun Nov  6 08:49:37 1994", before), absl::Seconds(5));
}

TEST(ParseRetryAfter, DateInThePastIsNoWait) {
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", kRfcDate + absl::Hours(1)),
            absl::ZeroDuration());
}

TEST(ParseRetryAfter, GarbageIsAbsent) {
  EXPECT_FALSE(ParseRetryAfter("", kRfcDate).has_value());
  EXPECT_FALSE(ParseRetryAfter("-5", kRfcDate).has_value());
  EXPECT_FALSE(ParseRetryAfter("1.5", kRfcDate).has_value());
  EXPECT_FALSE(ParseRetryAfter("soon", kRfcDate).has_value());
  EXPECT_FALSE(ParseRetryAfter("Sun, 06 Nov 1994", kRfcDate).has_value());
}

TEST(RetryAfterFromHeaders, FindsTheFieldCaseInsensitively) {
  const char* headers =
      "HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain\r\nretry-AFTER: 7\r\n\r\n";
  EXPECT_EQ(RetryAfterFromHeaders(headers, kRfcDate), absl::Seconds(7));
}

TEST(RetryAfterFromHeaders, AbsentFieldIsNullopt) {
  EXPECT_FALSE(RetryAfterFromHeaders("HTTP/1.1 503 Busy\r\nX-Retry-After-Not: 5\r\n\r\n", kRfcDate)
                   .has_value());
  EXPECT_FALSE(RetryAfterFromHeaders("", kRfcDate).has_value());
}

TEST(RetryAfterFromHeaders, LastResponseOfTheBlockCounts) {
  const char* headers =
      "HTTP/1.1 100 Continue\nRetry-After: 99\n\nHTTP/1.1 503 Busy\nRetry-After: 3\n\n";
  EXPECT_EQ(RetryAfterFromHeaders(headers, kRfcDate), absl::Seconds(3));
  const char* interim_only = "HTTP/1.1 100 Continue\nRetry-After: 99\n\nHTTP/1.1 503 Busy\n\n";
  EXPECT_FALSE(RetryAfterFromHeaders(interim_only, kRfcDate).has_value());
}

}  // namespace
}  // namespace crawler
