// TestSite: a deterministic generated web site served on loopback by
// cpp-httplib, for the crawler's tests, benchmarks and demo. It counts every
// request per path and logs when each started and ended, so a test can assert
// "every page fetched exactly once", depth limits, politeness (request spacing,
// concurrent requests) and that traps were never touched.
//
//   auto site = testsite::TestSite::Start({.pages = 200, .redirects = true});
//   if (!site.ok()) return site.status();
//   Crawl((*site)->RootUrl());                       // "http://127.0.0.1:PORT/"
//   for (const std::string& url : (*site)->PageUrls())
//     EXPECT_EQ((*site)->RequestCount(url), 1);
//   EXPECT_EQ((*site)->RequestCountWithPrefix("/trap/"), 0);
//
// Threading: every method is safe to call concurrently, also while requests
// are being served. Handlers run on the server's worker threads.
#ifndef TESTSITE_TEST_SITE_H_
#define TESTSITE_TEST_SITE_H_

#include <httplib.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "testsite/change_set.h"
#include "testsite/site_options.h"

namespace testsite {

// One served request, as the server saw it.
struct RequestRecord {
  std::string method;  // "GET", "HEAD", ...
  std::string path;    // decoded path, no query: "/p/7.html"
  std::string target;  // as sent, with query: "/p/7.html?x=1"
  std::string user_agent;
  // The conditional request headers (--recrawl), "" when absent.
  std::string if_none_match;
  std::string if_modified_since;
  int status = 0;        // status code, set when the handler returns (0 before)
  int remote_port = -1;  // the client's port: one value per client connection
  // start: the request line and headers were read, before routing.
  // end: set when the handler returns (before the first byte goes out), then
  // again once the response was written or its write failed; a client may see
  // the last byte a moment before that second update. Steady clock.
  std::chrono::steady_clock::time_point start_time;
  std::chrono::steady_clock::time_point end_time;
};

// What SiteOptions::fault_rate did so far: first requests of faulty pages,
// by the fault they got.
struct FaultCounts {
  uint64_t http_500 = 0;
  uint64_t http_503 = 0;     // with Retry-After 0 or fault_retry_after_s
  uint64_t resets = 0;       // RST after half the body
  uint64_t truncations = 0;  // FIN after half the promised Content-Length
  uint64_t stalls = 0;       // a pause mid-body, then the whole page: not a failure
  // Requests that failed on purpose (everything but the stalls).
  uint64_t failures() const { return http_500 + http_503 + resets + truncations; }
};

// A route added by a test. Runs on a worker thread; must not throw.
using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;

class TestSite {
 public:
  // Validates the options, binds host:port and serves on a background thread.
  // Returns once the server accepts connections.
  static absl::StatusOr<std::unique_ptr<TestSite>> Start(const SiteOptions& options);

  // Stops the server (see Stop) and releases its threads.
  ~TestSite();

  TestSite(const TestSite&) = delete;
  TestSite& operator=(const TestSite&) = delete;

  const SiteOptions& options() const;
  int port() const;
  // "http://127.0.0.1:PORT", no trailing slash.
  std::string BaseUrl() const;
  // The hand-written second listener of the hostile cases (resets, gzip bomb,
  // missing content type), same host, its own port; "" unless one of them is
  // on. Its requests are counted with the others (RequestCount("/bomb")).
  std::string RawBaseUrl() const;
  // The first page, "http://127.0.0.1:PORT/".
  std::string RootUrl() const;
  // The URL of page i, 0 <= i < pages: "http://127.0.0.1:PORT/p/7.html".
  std::string PageUrl(uint64_t i) const;

  // Every HTML page reachable from the root: the set a complete crawl fetches.
  // Ordered by page index (the root first). Never holds redirects, non-HTML
  // files, nofollow pages, traps or stalls.
  std::vector<std::string> PageUrls() const;
  // Pages within `depth` link hops of the root, by breadth-first search over
  // the site's followable links; a link through /r/<i> is one hop to page i.
  // Depth 0 is the root alone.
  std::vector<std::string> PageUrlsWithinDepth(int depth) const;
  // Non-HTML files (/f/...) linked from reachable pages. Empty unless non_html.
  std::vector<std::string> NonHtmlUrls() const;

  // Requests per decoded path (no query), every route and status counted.
  // Also takes a URL of this site: RequestCount(PageUrl(7)) counts "/p/7.html".
  uint64_t RequestCount(std::string_view path_or_url) const;
  // Sum of RequestCount over paths starting with `prefix` ("/trap/").
  uint64_t RequestCountWithPrefix(std::string_view prefix) const;
  uint64_t TotalRequests() const;
  std::map<std::string, uint64_t> RequestCounts() const;
  // Every request in arrival order (empty when keep_request_log is off).
  std::vector<RequestRecord> RequestLog() const;
  // Requests of `path_or_url` (a page) that failed on purpose: 0 or 1 (the
  // first request of a faulty page; see SiteOptions::fault_rate). A page's
  // successful responses are RequestCount minus this, unless the client hung
  // up itself.
  uint64_t FailuresInjected(std::string_view path_or_url) const;
  // Every fault injected so far, by kind.
  FaultCounts InjectedFaults() const;
  // Peak number of requests being handled at once, from the request parsed to
  // its handler returning. That window lies inside what the client sees, so the
  // peak never over-counts the client's concurrency; with latency_ms > 0 it
  // matches it closely.
  int MaxConcurrentRequests() const;
  // Forgets counts, log and the concurrency peak (requests in flight still end
  // normally but are not counted again).
  void ResetCounts();

  // Adds or replaces a route for GET/HEAD of exactly `path` (no query). It wins
  // over the generated site; requests to it are counted and logged like any
  // other, without `latency_ms`. Stop() waits for running handlers, so one that
  // waits should wait with a timeout. Note that cpp-httplib compresses a
  // set_content() body of a text type when the client's Accept-Encoding asks
  // (brotli at its slowest quality); set_content_provider() sends bytes as is.
  void Handle(const std::string& path, Handler handler);

  // Serves epoch `epoch` from now on (SiteOptions::epoch, testsite/change_set.h):
  // pages edited, removed and added as the ChangeSet says. Safe while serving.
  void SetEpoch(int epoch);
  int epoch() const;
  // The rules behind the epochs, for a test's expected counts.
  const ChangeSet& changes() const;

  // Stops accepting, wakes stalled and delayed handlers, and waits for the
  // worker threads. Returns within about keep_alive_timeout_s even if a client
  // keeps an idle connection open. Idempotent; counts stay readable.
  void Stop();

 private:
  class Impl;
  explicit TestSite(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace testsite

#endif  // TESTSITE_TEST_SITE_H_
