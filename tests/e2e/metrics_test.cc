// `--metrics`: the Prometheus endpoint scraped during a loopback crawl (every
// scrape must parse strictly), and after the crawl, where its counters must
// equal summary.json's.
#include <httplib.h>

#include <atomic>
#include <thread>

#include "crawler/crawl.h"
#include "e2e/e2e_util.h"
#include "e2e/prometheus_text.h"
#include "gtest/gtest.h"
#include "testsite/test_site.h"

namespace {

struct Scrape {
  int status = 0;
  std::string content_type;
  std::string body;
};

// GET `url` ("http://127.0.0.1:PORT/metrics" or another path on it).
Scrape ScrapeUrl(const std::string& url, const std::string& path = "/metrics") {
  const size_t host_start = url.find("//") + 2;
  const size_t path_start = url.find('/', host_start);
  httplib::Client client(url.substr(0, path_start));
  client.set_connection_timeout(2, 0);
  client.set_read_timeout(5, 0);
  Scrape scrape;
  if (auto response = client.Get(path)) {
    scrape.status = response->status;
    scrape.content_type = response->get_header_value("Content-Type");
    scrape.body = response->body;
  }
  return scrape;
}

TEST(Metrics, ScrapesParseDuringTheCrawlAndEqualSummaryJsonAfterIt) {
  testsite::SiteOptions site_options;
  site_options.pages = 60;
  site_options.latency_ms = 15;  // ~0.5 s of crawl at 2 connections: time to scrape
  site_options.redirects = true;
  site_options.robots_txt = "User-agent: *\nDisallow: /p/5\n";
  auto site = testsite::TestSite::Start(site_options);
  ASSERT_TRUE(site.ok()) << site.status();
  (*site)->Handle("/broken", [](const httplib::Request&, httplib::Response& response) {
    response.status = 500;
    response.set_content("no", "text/plain");
  });
  crawler::CrawlOptions options = e2e::FastOptions("metrics");
  options.metrics = "0";  // any free loopback port
  options.robots = true;
  options.retries = 0;  // one transfer per fetched record
  options.connections = 2;
  options.per_host = 2;
  const std::string base = (*site)->BaseUrl();
  auto crawl = crawler::Crawler::Create(options, {base + "/", base + "/broken", base + "/nope"});
  ASSERT_TRUE(crawl.ok()) << crawl.status();
  const std::string url = (*crawl)->MetricsUrl();
  ASSERT_EQ(url.rfind("http://127.0.0.1:", 0), 0u) << url;

  std::atomic<bool> done{false};
  absl::StatusOr<crawler::CrawlSummary> summary;
  std::thread runner([&] {
    summary = (*crawl)->Run();
    done.store(true);
  });
  int mid_crawl_scrapes = 0;
  double last_pages = 0;
  while (!done.load()) {
    const Scrape scrape = ScrapeUrl(url);
    ASSERT_EQ(scrape.status, 200);
    EXPECT_EQ(scrape.content_type, "text/plain; version=0.0.4; charset=utf-8");
    absl::StatusOr<e2e::Exposition> parsed = e2e::ParseExposition(scrape.body, "crawl_");
    ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << scrape.body;
    const double pages = parsed->Get("crawl_pages_total");
    EXPECT_GE(pages, last_pages);  // a counter never goes back
    last_pages = pages;
    if (pages > 0 && !done.load()) ++mid_crawl_scrapes;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  runner.join();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_GT(mid_crawl_scrapes, 0) << "no scrape saw the crawl under way";

  const Scrape final_scrape = ScrapeUrl(url);
  ASSERT_EQ(final_scrape.status, 200);
  absl::StatusOr<e2e::Exposition> m = e2e::ParseExposition(final_scrape.body, "crawl_");
  ASSERT_TRUE(m.ok()) << m.status() << "\n" << final_scrape.body;
  const nlohmann::json s = e2e::ReadSummary(options.out_dir);
  EXPECT_EQ(m->types.at("crawl_pages_total"), "counter");
  EXPECT_EQ(m->types.at("crawl_fetch_duration_seconds"), "histogram");
  EXPECT_EQ(m->Get("crawl_pages_total"), s["pages"].get<double>());
  EXPECT_GE(s["pages"].get<int>(), 60);
  EXPECT_EQ(m->Get("crawl_pages_ok_total"), s["pages_ok"].get<double>());
  EXPECT_EQ(m->Get("crawl_bytes_total"), s["bytes"].get<double>());
  EXPECT_EQ(m->Get("crawl_redirects_total"), s["redirects"].get<double>());
  EXPECT_GT(m->Get("crawl_redirects_total"), 0);
  EXPECT_EQ(m->Get("crawl_robots_fetches_total"), s["robots_fetches"].get<double>());
  EXPECT_EQ(m->Get("crawl_robots_blocked_total"), s["robots_blocked"].get<double>());
  EXPECT_GT(m->Get("crawl_robots_blocked_total"), 0);
  EXPECT_EQ(m->Get("crawl_links_found_total"), s["links_found"].get<double>());
  EXPECT_EQ(m->Get("crawl_links_new_total"), s["links_new"].get<double>());
  ASSERT_FALSE(s["errors_by_kind"].empty());
  for (const auto& [kind, n] : s["errors_by_kind"].items()) {
    EXPECT_EQ(m->Get("crawl_errors_total{kind=\"" + kind + "\"}"), n.get<double>()) << kind;
  }
  for (const auto& [status, n] : s["status_counts"].items()) {
    EXPECT_EQ(m->Get("crawl_responses_total{status=\"" + status + "\"}"), n.get<double>())
        << status;
  }
  // Every record but the robots-blocked ones was one transfer (no retries).
  EXPECT_EQ(m->Get("crawl_fetch_duration_seconds_count"),
            s["pages"].get<double>() - s["robots_blocked"].get<double>());
  EXPECT_GT(m->Get("crawl_fetch_duration_seconds_sum"), 0);
  EXPECT_EQ(m->Get("crawl_queue_urls"), s["queued_at_end"].get<double>());
  EXPECT_GE(m->Get("crawl_queue_bytes{where=\"memory\"}"), 0);
  EXPECT_EQ(m->Get("crawl_queue_bytes{where=\"disk\"}"), 0);
  EXPECT_NEAR(m->Get("crawl_filter_estimated_urls"), s["seen_estimate"].get<double>(), 0.5);
  EXPECT_NEAR(m->Get("crawl_filter_fp_rate_computed"), s["filter_fp_rate"].get<double>(), 1e-12);
  EXPECT_GE(m->Get("crawl_host_backoffs_total{reason=\"failure\"}"), 1);  // the 500
  EXPECT_EQ(m->Get("crawl_hosts_dropped"), 0);

  EXPECT_EQ(ScrapeUrl(url, "/other").status, 404);
}

TEST(Metrics, AnAddressInUseFailsTheStart) {
  auto site = testsite::TestSite::Start({});
  ASSERT_TRUE(site.ok()) << site.status();
  crawler::CrawlOptions options = e2e::FastOptions("metrics_in_use");
  options.metrics = "127.0.0.1:" + std::to_string((*site)->port());
  auto crawl = crawler::Crawler::Create(options, {(*site)->BaseUrl() + "/"});
  ASSERT_FALSE(crawl.ok());
  EXPECT_NE(std::string(crawl.status().message()).find("--metrics 127.0.0.1:"), std::string::npos)
      << crawl.status();
}

}  // namespace
