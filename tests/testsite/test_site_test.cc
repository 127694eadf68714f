// TestSite basics: lifecycle, determinism, reachability, depth sets, request
// counting and custom routes. Source of truth: the served HTML, crawled by
// ReferenceCrawl, never the generator's own bookkeeping alone.
#include "testsite/test_site.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

#include "reference_crawl.h"

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testsite::SiteOptions;
using testsite::TestSite;
using testsite_test::PathOf;
using testsite_test::Paths;
using testsite_test::ReferenceCrawl;
using testsite_test::StartOrDie;

std::set<std::string> Keys(const std::map<std::string, int>& map) {
  std::set<std::string> keys;
  for (const auto& [key, value] : map) keys.insert(key);
  return keys;
}

// Replaces every occurrence of `from` so bodies from two ports compare equal.
std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

TEST(TestSiteTest, StartsOnAnEphemeralPortAndServesTheRoot) {
  auto site = StartOrDie({.pages = 10});
  ASSERT_NE(site, nullptr);
  EXPECT_GT(site->port(), 0);
  EXPECT_EQ(site->BaseUrl(), "http://127.0.0.1:" + std::to_string(site->port()));
  EXPECT_EQ(site->RootUrl(), site->BaseUrl() + "/");
  EXPECT_EQ(site->PageUrl(3), site->BaseUrl() + "/p/3.html");

  httplib::Client client("127.0.0.1", site->port());
  const auto response = client.Get("/");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_THAT(response->body, HasSubstr("<title>Page 0 - testsite</title>"));
}

TEST(TestSiteTest, RejectsInvalidOptions) {
  EXPECT_EQ(TestSite::Start({.pages = 0}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(TestSite::Start({.links_per_page = 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(TestSite::Start({.latency_ms = -1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(TestSite::Start({.port = 70000}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(TestSite::Start({.threads = 0}).status().code(), absl::StatusCode::kInvalidArgument);
}

// Sites on 127.0.0.1 and 127.0.0.2 look like two hosts to a crawler.
TEST(TestSiteTest, ListensOnAnotherLoopbackAddress) {
  auto site = StartOrDie({.pages = 5, .host = "127.0.0.2"});
  ASSERT_NE(site, nullptr);
  EXPECT_EQ(site->RootUrl(), "http://127.0.0.2:" + std::to_string(site->port()) + "/");
  httplib::Client client("127.0.0.2", site->port());
  const auto root = client.Get("/");
  ASSERT_TRUE(root);
  EXPECT_EQ(root->status, 200);
  EXPECT_EQ(site->RequestCount(site->RootUrl()), 1u);
  EXPECT_EQ(site->RequestLog().at(0).path, "/");
}

TEST(TestSiteTest, ReportsABusyPort) {
  auto first = StartOrDie({.pages = 5});
  ASSERT_NE(first, nullptr);
  auto second = TestSite::Start({.pages = 5, .port = first->port()});
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable) << second.status();
}

TEST(TestSiteTest, SameOptionsServeTheSameSiteAndAnotherSeedDoesNot) {
  const SiteOptions options{.pages = 40, .links_per_page = 6, .seed = 7};
  auto a = StartOrDie(options);
  auto b = StartOrDie(options);
  SiteOptions reseeded = options;
  reseeded.seed = 8;
  auto c = StartOrDie(reseeded);
  ASSERT_TRUE(a && b && c);
  httplib::Client client_a("127.0.0.1", a->port());
  httplib::Client client_b("127.0.0.1", b->port());
  httplib::Client client_c("127.0.0.1", c->port());
  int differs_from_other_seed = 0;
  for (const std::string& url : a->PageUrls()) {
    const std::string path = PathOf(*a, url);
    const auto body_a = client_a.Get(path);
    const auto body_b = client_b.Get(path);
    const auto body_c = client_c.Get(path);
    ASSERT_TRUE(body_a && body_b && body_c) << path;
    EXPECT_EQ(body_a->body, ReplaceAll(body_b->body, b->BaseUrl(), a->BaseUrl())) << path;
    if (body_a->body != ReplaceAll(body_c->body, c->BaseUrl(), a->BaseUrl())) {
      ++differs_from_other_seed;
    }
  }
  EXPECT_EQ(Paths(*a, a->PageUrls()), Paths(*b, b->PageUrls()));
  EXPECT_GT(differs_from_other_seed, 30);
}

TEST(TestSiteTest, ACrawlOfTheServedHtmlFindsExactlyThePageUrls) {
  auto site = StartOrDie({.pages = 300, .links_per_page = 6, .seed = 3});
  ASSERT_NE(site, nullptr);
  const std::vector<std::string> expected = site->PageUrls();
  ASSERT_EQ(expected.size(), 300u);
  EXPECT_EQ(expected.front(), site->RootUrl());

  const auto crawl = ReferenceCrawl(*site);
  EXPECT_THAT(crawl.errors, ElementsAre());
  EXPECT_EQ(Keys(crawl.html_depth), Paths(*site, expected));
  for (const std::string& url : expected) {
    EXPECT_EQ(site->RequestCount(PathOf(*site, url)), 1u) << url;
  }
  EXPECT_EQ(site->TotalRequests(), expected.size());
}

TEST(TestSiteTest, PageUrlsWithinDepthMatchesABreadthFirstCrawl) {
  auto site = StartOrDie({.pages = 500, .links_per_page = 4, .seed = 11});
  ASSERT_NE(site, nullptr);
  EXPECT_THAT(site->PageUrlsWithinDepth(0), ElementsAre(site->RootUrl()));
  size_t previous = 0;
  for (int depth = 0; depth <= 4; ++depth) {
    const auto expected = Paths(*site, site->PageUrlsWithinDepth(depth));
    EXPECT_GT(expected.size(), previous) << "depth " << depth;
    previous = expected.size();
    const auto crawl = ReferenceCrawl(*site, depth);
    EXPECT_EQ(Keys(crawl.html_depth), expected) << "depth " << depth;
  }
  EXPECT_LT(previous, 500u) << "depth 4 should not cover a 500-page site with 4 links a page";
  // The full crawl's depths agree with the per-depth sets.
  const auto full = ReferenceCrawl(*site);
  for (const auto& [path, depth] : full.html_depth) {
    EXPECT_EQ(Paths(*site, site->PageUrlsWithinDepth(depth)).count(path), 1u) << path;
    if (depth > 0) {
      EXPECT_EQ(Paths(*site, site->PageUrlsWithinDepth(depth - 1)).count(path), 0u) << path;
    }
  }
}

TEST(TestSiteTest, PagesLookLikeRealHtml) {
  auto site = StartOrDie({.pages = 50, .links_per_page = 10, .page_bytes = 4096});
  ASSERT_NE(site, nullptr);
  httplib::Client client("127.0.0.1", site->port());
  const auto response = client.Get("/p/17.html");
  ASSERT_TRUE(response);
  EXPECT_GE(response->body.size(), 4096u);
  EXPECT_LT(response->body.size(), 4096u + 4096u);
  EXPECT_THAT(response->body, HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(response->body, HasSubstr("<nav><ul>"));
  EXPECT_THAT(response->body, HasSubstr("<p>"));
  // links_per_page page links plus the footer's "#top" (mailto is not followable).
  EXPECT_GE(testsite_test::FollowableHrefs(response->body).size(), 11u);
}

TEST(TestSiteTest, EveryPageHasExactlyOnePath) {
  auto site = StartOrDie({.pages = 30});
  ASSERT_NE(site, nullptr);
  httplib::Client client("127.0.0.1", site->port());
  for (const char* path : {"/p/0.html", "/p/30.html", "/p/01.html", "/p/1.htm", "/p/-1.html",
                           "/p/1.html/", "/p/99999999999999999999.html", "/r/1", "/f/1.txt",
                           "/stall", "/nofollow/1.html", "/robots.txt"}) {
    const auto response = client.Get(path);
    ASSERT_TRUE(response) << path;
    EXPECT_EQ(response->status, 404) << path;
  }
  const auto page = client.Get("/p/29.html");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
}

TEST(TestSiteTest, CountsAndLogsEveryRequest) {
  auto site = StartOrDie({.pages = 10});
  ASSERT_NE(site, nullptr);
  httplib::Client client("127.0.0.1", site->port());
  client.set_keep_alive(true);
  client.set_default_headers({{"User-Agent", "counting-test/1"}});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(client.Get("/p/1.html"));
  ASSERT_TRUE(client.Get("/nope?x=1"));
  ASSERT_TRUE(client.Get("/nope"));
  ASSERT_TRUE(client.Head("/p/2.html"));

  EXPECT_EQ(site->RequestCount("/p/1.html"), 3u);
  EXPECT_EQ(site->RequestCount(site->PageUrl(1)), 3u);
  EXPECT_EQ(site->RequestCount(site->BaseUrl()), 0u);
  EXPECT_EQ(site->RequestCount("/nope"), 2u);
  EXPECT_EQ(site->RequestCount("/p/3.html"), 0u);
  EXPECT_EQ(site->RequestCountWithPrefix("/p/"), 4u);
  EXPECT_EQ(site->TotalRequests(), 6u);
  const std::map<std::string, uint64_t> expected{{"/nope", 2}, {"/p/1.html", 3}, {"/p/2.html", 1}};
  EXPECT_EQ(site->RequestCounts(), expected);

  const auto log = site->RequestLog();
  ASSERT_EQ(log.size(), 6u);
  EXPECT_EQ(log[0].status, 200);
  EXPECT_EQ(log[3].status, 404);
  EXPECT_EQ(log[3].path, "/nope");
  EXPECT_EQ(log[3].target, "/nope?x=1");
  EXPECT_EQ(log[5].method, "HEAD");
  for (const auto& record : log) {
    EXPECT_EQ(record.user_agent, "counting-test/1");
    EXPECT_GT(record.remote_port, 0);
    EXPECT_GE(record.end_time, record.start_time);
  }
  EXPECT_EQ(log[0].remote_port, log[5].remote_port) << "one keep-alive connection";
  EXPECT_EQ(site->MaxConcurrentRequests(), 1);

  site->ResetCounts();
  EXPECT_EQ(site->TotalRequests(), 0u);
  EXPECT_EQ(site->RequestCount("/p/1.html"), 0u);
  EXPECT_TRUE(site->RequestLog().empty());
  ASSERT_TRUE(client.Get("/p/1.html"));
  EXPECT_EQ(site->RequestCount("/p/1.html"), 1u);
  ASSERT_EQ(site->RequestLog().size(), 1u);
  EXPECT_EQ(site->RequestLog()[0].status, 200);
}

TEST(TestSiteTest, RequestLogCanBeTurnedOffWhileCountsStay) {
  auto site = StartOrDie({.pages = 10, .keep_request_log = false});
  ASSERT_NE(site, nullptr);
  httplib::Client client("127.0.0.1", site->port());
  ASSERT_TRUE(client.Get("/"));
  EXPECT_EQ(site->RequestCount("/"), 1u);
  EXPECT_TRUE(site->RequestLog().empty());
}

TEST(TestSiteTest, MeasuresPeakConcurrentRequests) {
  auto site = StartOrDie({.pages = 10, .latency_ms = 300});
  ASSERT_NE(site, nullptr);
  constexpr int kClients = 6;
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&site, i] {
      httplib::Client client("127.0.0.1", site->port());
      EXPECT_TRUE(client.Get("/p/" + std::to_string(i + 1) + ".html"));
    });
  }
  for (auto& client : clients) client.join();
  EXPECT_GE(site->MaxConcurrentRequests(), 2);
  EXPECT_LE(site->MaxConcurrentRequests(), kClients);
  const auto log = site->RequestLog();
  ASSERT_EQ(log.size(), static_cast<size_t>(kClients));
  for (const auto& record : log) {
    EXPECT_GE(record.end_time - record.start_time, std::chrono::milliseconds(290));
  }
}

// cpp-httplib's default pool has 8 threads; a crawler with 16 connections
// must see all 16 served at once.
TEST(TestSiteTest, ServesMoreConnectionsAtOnceThanHttplibsDefaultPool) {
  auto site = StartOrDie({.pages = 40, .latency_ms = 600, .threads = 64});
  ASSERT_NE(site, nullptr);
  constexpr int kClients = 16;
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&site, i] {
      httplib::Client client("127.0.0.1", site->port());
      EXPECT_TRUE(client.Get("/p/" + std::to_string(i + 1) + ".html"));
    });
  }
  for (auto& client : clients) client.join();
  EXPECT_GT(site->MaxConcurrentRequests(), 8);
}

TEST(TestSiteTest, StopReturnsPromptlyWhileAClientHoldsAnIdleConnection) {
  auto site = StartOrDie({.pages = 10, .keep_alive_timeout_s = 1});
  ASSERT_NE(site, nullptr);
  httplib::Client client("127.0.0.1", site->port());
  client.set_keep_alive(true);
  ASSERT_TRUE(client.Get("/"));  // the connection stays open and idle
  const auto start = std::chrono::steady_clock::now();
  site->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(2500));
}

TEST(TestSiteTest, HandleAddsAnExactRouteThatWinsOverTheSite) {
  auto site = StartOrDie({.pages = 10, .latency_ms = 0});
  ASSERT_NE(site, nullptr);
  site->Handle("/custom", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("<a href=\"/p/1.html\">one</a>", "text/html");
  });
  site->Handle("/",
               [](const httplib::Request&, httplib::Response& response) { response.status = 418; });
  httplib::Client client("127.0.0.1", site->port());
  const auto custom = client.Get("/custom");
  ASSERT_TRUE(custom);
  EXPECT_EQ(custom->status, 200);
  EXPECT_EQ(custom->body, "<a href=\"/p/1.html\">one</a>");
  const auto root = client.Get("/");
  ASSERT_TRUE(root);
  EXPECT_EQ(root->status, 418);
  const auto prefix_only = client.Get("/custom/more");
  ASSERT_TRUE(prefix_only);
  EXPECT_EQ(prefix_only->status, 404);
  EXPECT_EQ(site->RequestCount("/custom"), 1u);
  EXPECT_EQ(site->RequestCount("/"), 1u);
}

// Clients that hang up in the middle of a large body (a crawler's body cap)
// leave the server serving. cpp-httplib checks the peer before each send, so
// SIGPIPE here needs a lost race; the worker threads block it for that case,
// which this test cannot force.
TEST(TestSiteTest, SurvivesAClientHangingUpMidBody) {
  auto site = StartOrDie({.pages = 10});
  ASSERT_NE(site, nullptr);
  site->Handle("/huge", [](const httplib::Request&, httplib::Response& response) {
    // octet-stream: cpp-httplib would brotli-compress a text body first.
    response.set_content(std::string(16 << 20, 'x'), "application/octet-stream");
  });
  for (int attempt = 0; attempt < 3; ++attempt) {
    httplib::Client client("127.0.0.1", site->port());
    size_t received = 0;
    // Returning false from the receiver makes the client close the socket.
    const auto cut = client.Get("/huge", [&received](const char*, size_t length) {
      received += length;
      return received < 64 * 1024;
    });
    EXPECT_FALSE(cut);
    EXPECT_GE(received, 64u * 1024);
  }
  // Give the server's writes time to hit the closed sockets (EPIPE).
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  httplib::Client after("127.0.0.1", site->port());
  const auto root = after.Get("/");
  ASSERT_TRUE(root);
  EXPECT_EQ(root->status, 200);
  EXPECT_EQ(site->RequestCount("/huge"), 3u);
}

TEST(TestSiteTest, ServesRobotsTxtWhenGiven) {
  auto site = StartOrDie({.pages = 10, .robots_txt = "User-agent: *\nDisallow: /p/3.html\n"});
  ASSERT_NE(site, nullptr);
  httplib::Client client("127.0.0.1", site->port());
  const auto robots = client.Get("/robots.txt");
  ASSERT_TRUE(robots);
  EXPECT_EQ(robots->status, 200);
  EXPECT_EQ(robots->get_header_value("Content-Type"), "text/plain; charset=utf-8");
  EXPECT_EQ(robots->body, "User-agent: *\nDisallow: /p/3.html\n");
  EXPECT_EQ(site->RequestCount("/robots.txt"), 1u);
}

TEST(TestSiteTest, StopIsIdempotentAndCountsStayReadable) {
  auto site = StartOrDie({.pages = 10});
  ASSERT_NE(site, nullptr);
  httplib::Client client("127.0.0.1", site->port());
  ASSERT_TRUE(client.Get("/"));
  client.stop();
  site->Stop();
  site->Stop();
  EXPECT_EQ(site->RequestCount("/"), 1u);
  httplib::Client late("127.0.0.1", site->port());
  late.set_connection_timeout(std::chrono::milliseconds(500));
  EXPECT_FALSE(late.Get("/"));
}

}  // namespace

namespace {

// The token bucket: `rate_burst` requests served, then 429 (one token per
// 1000 s: no refill within the test), with Retry-After when asked.
TEST(TestSiteTest, ARateLimitAnswers429PastTheBucket) {
  SiteOptions options;
  options.pages = 10;
  options.rate_limit = 0.001;
  options.rate_burst = 3;
  options.rate_limit_retry_after = 2;
  auto site = StartOrDie(options);
  ASSERT_NE(site, nullptr);
  httplib::Client client("127.0.0.1", site->port());
  std::vector<int> statuses;
  for (int i = 0; i < 5; ++i) {
    const auto response = client.Get("/p/1.html");
    ASSERT_TRUE(response);
    statuses.push_back(response->status);
    if (response->status == 429) {
      EXPECT_EQ(response->get_header_value("Retry-After"), "2");
    }
  }
  EXPECT_THAT(statuses, ElementsAre(200, 200, 200, 429, 429));
  EXPECT_EQ(site->RequestCount("/p/1.html"), 5u);
}

TEST(TestSiteTest, RejectsABadRateLimit) {
  SiteOptions options;
  options.rate_burst = 0;
  EXPECT_FALSE(TestSite::Start(options).ok());
  options = {};
  options.load_capacity = -1;
  EXPECT_FALSE(TestSite::Start(options).ok());
}

}  // namespace
