// RetryQueue: which failures are retried, the back-off sequence, the attempt
// count reported with the final outcome, and due-time order.
#include "crawler/retry_queue.h"

#include "gtest/gtest.h"

namespace crawler {
namespace {

CrawlUrl UrlOf(const std::string& url) {
  CrawlUrl u;
  u.url = url;
  u.depth = 3;
  u.parent = "http://a.test/";
  return u;
}

const absl::Time kRetryT0 = absl::FromUnixSeconds(1'700'000'000);

TEST(IsRetryable, TransientStatusesAndTransportErrorsOnly) {
  for (long status : {429, 500, 502, 503, 504}) EXPECT_TRUE(IsRetryable(status, "")) << status;
  for (long status : {0, 200, 301, 404, 501, 505}) EXPECT_FALSE(IsRetryable(status, ""));
  for (const char* error : {"timeout", "connect", "reset", "reset: connection reset by peer"}) {
    EXPECT_TRUE(IsRetryable(0, error)) << error;
  }
  for (const char* error : {"dns", "tls", "body_too_large", "private_address", "scheme",
                            "headers_too_large", "aborted", "other: x"}) {
    EXPECT_FALSE(IsRetryable(0, error)) << error;
  }
  // A transport error wins over the status of a response cut mid-body.
  EXPECT_FALSE(IsRetryable(503, "body_too_large"));
}

TEST(RetryQueue, BacksOffExponentiallyAndCountsAttempts) {
  RetryQueue queue({.max_retries = 3, .first_backoff = absl::Seconds(1)});
  const CrawlUrl url = UrlOf("http://a.test/x");
  int attempts = 0;
  absl::Time now = kRetryT0;
  for (int retry = 1; retry <= 3; ++retry) {
    ASSERT_TRUE(queue.ScheduleIfRetryable(url, 503, "", now, &attempts)) << retry;
    const absl::Duration wait = absl::Seconds(1 << (retry - 1));  // 1 s, 2 s, 4 s
    EXPECT_EQ(queue.NextDueTime(), now + wait);
    EXPECT_FALSE(queue.TakeDue(now + wait - absl::Milliseconds(1)).has_value());
    std::optional<CrawlUrl> due = queue.TakeDue(now + wait);
    ASSERT_TRUE(due.has_value());
    EXPECT_EQ(due->url, url.url);
    EXPECT_EQ(due->depth, 3);  // the URL comes back as it left
    EXPECT_EQ(due->parent, url.parent);
    now += wait;
  }
  EXPECT_FALSE(queue.ScheduleIfRetryable(url, 503, "", now, &attempts));
  EXPECT_EQ(attempts, 4);
  EXPECT_EQ(queue.scheduled(), 3u);
  EXPECT_EQ(queue.waiting(), 0u);
  EXPECT_EQ(queue.NextDueTime(), absl::InfiniteFuture());
  // Forgotten once final: a later failure of the same URL starts over.
  EXPECT_TRUE(queue.ScheduleIfRetryable(url, 0, "timeout", now, &attempts));
}

TEST(RetryQueue, ASuccessAfterRetriesReportsAllAttempts) {
  RetryQueue queue({.max_retries = 2, .first_backoff = absl::Milliseconds(10)});
  const CrawlUrl url = UrlOf("http://a.test/y");
  int attempts = 0;
  ASSERT_TRUE(queue.ScheduleIfRetryable(url, 0, "reset", kRetryT0, &attempts));
  ASSERT_TRUE(queue.TakeDue(kRetryT0 + absl::Seconds(1)).has_value());
  EXPECT_FALSE(queue.ScheduleIfRetryable(url, 200, "", kRetryT0, &attempts));
  EXPECT_EQ(attempts, 2);
}

TEST(RetryQueue, PermanentFailuresAndZeroRetriesAreFinalAtOnce) {
  RetryQueue none({.max_retries = 0});
  int attempts = 0;
  EXPECT_FALSE(none.ScheduleIfRetryable(UrlOf("http://a.test/z"), 503, "", kRetryT0, &attempts));
  EXPECT_EQ(attempts, 1);
  RetryQueue two({.max_retries = 2});
  EXPECT_FALSE(two.ScheduleIfRetryable(UrlOf("http://a.test/z"), 404, "", kRetryT0, &attempts));
  EXPECT_EQ(attempts, 1);
  EXPECT_EQ(two.waiting(), 0u);
}

TEST(RetryQueue, DueUrlsComeOutEarliestFirst) {
  RetryQueue queue({.max_retries = 5, .first_backoff = absl::Seconds(1)});
  int attempts = 0;
  // b fails twice (its second retry waits 2 s), a once (1 s), c once, later.
  const CrawlUrl a = UrlOf("http://a.test/a");
  const CrawlUrl b = UrlOf("http://a.test/b");
  const CrawlUrl c = UrlOf("http://a.test/c");
  ASSERT_TRUE(queue.ScheduleIfRetryable(b, 500, "", kRetryT0, &attempts));
  ASSERT_TRUE(queue.TakeDue(kRetryT0 + absl::Seconds(1)).has_value());
  ASSERT_TRUE(queue.ScheduleIfRetryable(b, 500, "", kRetryT0, &attempts));  // due kRetryT0 + 2 s
  ASSERT_TRUE(queue.ScheduleIfRetryable(a, 500, "", kRetryT0, &attempts));  // due kRetryT0 + 1 s
  ASSERT_TRUE(queue.ScheduleIfRetryable(c, 500, "", kRetryT0 + absl::Seconds(1), &attempts));
  EXPECT_EQ(queue.waiting(), 3u);
  const absl::Time later = kRetryT0 + absl::Seconds(10);
  EXPECT_EQ(queue.TakeDue(later)->url, a.url);  // kRetryT0 + 1 s
  EXPECT_EQ(queue.TakeDue(later)->url, b.url);  // kRetryT0 + 2 s, scheduled before c
  EXPECT_EQ(queue.TakeDue(later)->url, c.url);  // kRetryT0 + 2 s
  EXPECT_FALSE(queue.TakeDue(later).has_value());
}

}  // namespace
}  // namespace crawler

namespace crawler {
namespace {

// The queue is bounded: past max_waiting URLs, a retryable failure is final
// at once and counted; once some leave, retries are scheduled again.
TEST(RetryQueue, FullQueueMakesFailuresFinal) {
  RetryQueue retries({.max_retries = 2, .first_backoff = absl::Seconds(1), .max_waiting = 3});
  int attempts = 0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(retries.ScheduleIfRetryable(UrlOf("http://a.test/" + std::to_string(i)), 503, "",
                                            kRetryT0, &attempts));
  }
  EXPECT_FALSE(retries.ScheduleIfRetryable(UrlOf("http://a.test/x"), 503, "", kRetryT0, &attempts));
  EXPECT_EQ(attempts, 1);
  EXPECT_EQ(retries.waiting(), 3u);
  EXPECT_EQ(retries.full_refusals(), 1u);
  ASSERT_TRUE(retries.TakeDue(kRetryT0 + absl::Seconds(1)).has_value());
  EXPECT_TRUE(retries.ScheduleIfRetryable(UrlOf("http://a.test/y"), 503, "", kRetryT0, &attempts));
  EXPECT_EQ(retries.full_refusals(), 1u);
}

}  // namespace
}  // namespace crawler
