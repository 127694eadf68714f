// RenderMetrics and LatencyHistogram: the exact lines a scraper reads.
#include <cmath>
#include <string>

#include "crawler/metrics.h"
#include "gtest/gtest.h"

namespace {

using crawler::LatencyHistogram;
using crawler::MetricsSnapshot;
using crawler::RenderMetrics;

bool HasLine(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

TEST(LatencyHistogram, CountsEachObservationInItsBucket) {
  LatencyHistogram h;
  h.Observe(0.001);  // <= 0.005
  h.Observe(0.005);  // <= 0.005: bounds are inclusive, as Prometheus' le
  h.Observe(0.2);    // <= 0.25
  h.Observe(100);    // +Inf
  h.Observe(-1);     // taken as 0
  h.Observe(NAN);    // taken as 0
  const LatencyHistogram::Counts c = h.Read();
  EXPECT_EQ(c.count, 6u);
  EXPECT_EQ(c.buckets[0], 4u);
  EXPECT_EQ(c.buckets[5], 1u);
  EXPECT_EQ(c.buckets.back(), 1u);
  EXPECT_NEAR(c.sum_s, 100.206, 1e-6);
}

TEST(RenderMetrics, CountersCarryHelpTypeAndTheSummaryNumbers) {
  MetricsSnapshot m;
  m.summary.pages = 12;
  m.summary.bytes = 3456;
  m.summary.errors_by_kind = {{"timeout", 2}, {"odd\"kind\\", 1}};
  m.summary.status_counts = {{200, 10}, {0, 2}};
  const std::string text = RenderMetrics(m);
  EXPECT_TRUE(HasLine(text,
                      "# HELP crawl_pages_total Records written to pages.jsonl (every fetch "
                      "attempt)."));
  EXPECT_TRUE(HasLine(text, "# TYPE crawl_pages_total counter"));
  EXPECT_TRUE(HasLine(text, "crawl_pages_total 12"));
  EXPECT_TRUE(HasLine(text, "crawl_bytes_total 3456"));
  EXPECT_TRUE(HasLine(text, "crawl_errors_total{kind=\"timeout\"} 2"));
  EXPECT_TRUE(HasLine(text, "crawl_errors_total{kind=\"odd\\\"kind\\\\\"} 1"));
  EXPECT_TRUE(HasLine(text, "crawl_responses_total{status=\"0\"} 2"));
  EXPECT_TRUE(HasLine(text, "crawl_responses_total{status=\"200\"} 10"));
  EXPECT_EQ(text.back(), '\n');
}

TEST(RenderMetrics, QueueFilterAndHostGauges) {
  MetricsSnapshot m;
  m.progress.queued = 7;
  m.progress.queue_memory_bytes = 100;
  m.progress.queue_disk_bytes = 2000;
  m.progress.seen_estimate = std::nullopt;  // saturated
  m.progress.filter_fp_rate = 0.0125;
  m.hosts.failure_backoffs = 3;
  m.hosts.dropped_hosts = 1;
  std::string text = RenderMetrics(m);
  EXPECT_TRUE(HasLine(text, "crawl_queue_urls 7"));
  EXPECT_TRUE(HasLine(text, "crawl_queue_bytes{where=\"memory\"} 100"));
  EXPECT_TRUE(HasLine(text, "crawl_queue_bytes{where=\"disk\"} 2000"));
  EXPECT_TRUE(HasLine(text, "crawl_filter_estimated_urls +Inf"));
  EXPECT_TRUE(HasLine(text, "crawl_filter_fp_rate_computed 0.0125"));
  EXPECT_TRUE(HasLine(text, "crawl_host_backoffs_total{reason=\"failure\"} 3"));
  EXPECT_TRUE(HasLine(text, "crawl_hosts_dropped 1"));
  // Not measured yet: absent rather than a false 0.
  EXPECT_EQ(text.find("crawl_filter_fp_rate_measured"), std::string::npos);
  m.progress.fp_measured = crawler::MeasuredLoss{};
  m.progress.fp_measured->rate = 0.02;
  text = RenderMetrics(m);
  EXPECT_TRUE(HasLine(text, "# TYPE crawl_filter_fp_rate_measured gauge"));
  EXPECT_TRUE(HasLine(text, "crawl_filter_fp_rate_measured 0.02"));
}

// --adaptive-delay: slow-downs by reason, and the listed hosts' delays
// (absent without any).
TEST(RenderMetrics, AdaptiveSlowDownsAndHostDelays) {
  MetricsSnapshot m;
  m.hosts.slowdowns_refused = 4;
  m.hosts.slowdowns_latency = 2;
  std::string text = RenderMetrics(m);
  EXPECT_TRUE(HasLine(text, "crawl_host_slowdowns_total{reason=\"refused\"} 4"));
  EXPECT_TRUE(HasLine(text, "crawl_host_slowdowns_total{reason=\"failed\"} 0"));
  EXPECT_TRUE(HasLine(text, "crawl_host_slowdowns_total{reason=\"latency\"} 2"));
  EXPECT_EQ(text.find("crawl_host_delay_seconds"), std::string::npos);
  m.hosts.adaptive_delay_s = {{"http://a.test", 1.5}, {"http://b.test:81", 0.025}};
  text = RenderMetrics(m);
  EXPECT_TRUE(HasLine(text, "# TYPE crawl_host_delay_seconds gauge"));
  EXPECT_TRUE(HasLine(text, "crawl_host_delay_seconds{host=\"http://a.test\"} 1.5"));
  EXPECT_TRUE(HasLine(text, "crawl_host_delay_seconds{host=\"http://b.test:81\"} 0.025"));
}

// The grouping by server: its waits by reason always, the busiest servers'
// starts when there are any.
TEST(RenderMetrics, ServerWaitsAndBusiestServers) {
  MetricsSnapshot m;
  m.summary.servers_counted = 2;
  m.summary.server_slot_waits = 5;
  m.summary.server_delay_waits = 7;
  std::string text = RenderMetrics(m);
  EXPECT_TRUE(HasLine(text, "crawl_servers_counted 2"));
  EXPECT_TRUE(HasLine(text, "# TYPE crawl_server_waits_total counter"));
  EXPECT_TRUE(HasLine(text, "crawl_server_waits_total{reason=\"slot\"} 5"));
  EXPECT_TRUE(HasLine(text, "crawl_server_waits_total{reason=\"delay\"} 7"));
  EXPECT_EQ(text.find("crawl_server_starts_total"), std::string::npos);
  m.summary.busiest_servers = {{"127.0.0.1:8080", 40, 5, 7}, {"[::1]:443", 3, 0, 0}};
  text = RenderMetrics(m);
  EXPECT_TRUE(HasLine(text, "crawl_server_starts_total{server=\"127.0.0.1:8080\"} 40"));
  EXPECT_TRUE(HasLine(text, "crawl_server_starts_total{server=\"[::1]:443\"} 3"));
}

TEST(RenderMetrics, TheHistogramIsCumulativeAndEndsWithInf) {
  MetricsSnapshot m;
  LatencyHistogram h;
  h.Observe(0.003);
  h.Observe(0.04);
  h.Observe(60);
  m.latency = h.Read();
  const std::string text = RenderMetrics(m);
  EXPECT_TRUE(HasLine(text, "# TYPE crawl_fetch_duration_seconds histogram"));
  EXPECT_TRUE(HasLine(text, "crawl_fetch_duration_seconds_bucket{le=\"0.005\"} 1"));
  EXPECT_TRUE(HasLine(text, "crawl_fetch_duration_seconds_bucket{le=\"0.025\"} 1"));
  EXPECT_TRUE(HasLine(text, "crawl_fetch_duration_seconds_bucket{le=\"0.05\"} 2"));
  EXPECT_TRUE(HasLine(text, "crawl_fetch_duration_seconds_bucket{le=\"30\"} 2"));
  EXPECT_TRUE(HasLine(text, "crawl_fetch_duration_seconds_bucket{le=\"+Inf\"} 3"));
  EXPECT_TRUE(HasLine(text, "crawl_fetch_duration_seconds_count 3"));
  EXPECT_TRUE(HasLine(text, "crawl_fetch_duration_seconds_sum 60.043"));
}

}  // namespace
