// SiteOptions: what the generated test site looks like and which odd cases it
// serves. The site is a pure function of these options (and of the port, which
// only appears inside absolute links): the same options give the same pages,
// the same links and the same expected URL sets.
//
//   testsite::SiteOptions options;
//   options.pages = 1000;
//   options.links_per_page = 8;
//   options.redirects = true;  // some links go through /r/<i> -> 301 -> the page
//   auto site = testsite::TestSite::Start(options);
//
// Threading: a plain value; copy it freely.
//
// URL space (every path is counted by the server, see TestSite::RequestCount):
//   /                 page 0, the root
//   /p/<i>.html       page i, 1 <= i < pages (text/html, about `page_bytes`)
//   /r/<i>            301 to page i                      (with `redirects`)
//   /f/<i>.txt        text/plain  holding "<a href=/trap/..>" (with `non_html`)
//   /f/<i>.pdf        application/pdf, same trap text      (with `non_html`)
//   /stall            never answers until Stop()           (with `stalled`)
//   /stall-body       headers and half a body, then stalls (with `stalled`)
//   /nofollow/<i>.html a page linked only with rel=nofollow (with `nofollow`)
//   /trap/...         404: a crawler that requests it parsed what it must not
//   /robots.txt       `robots_txt`, or 404 when empty
// Hostile cases (each linked from the root when its option is on; see below):
//   RAW/reset/headers, RAW/reset/body   connection reset mid-headers / mid-body
//   /drip             one body byte every `drip_interval_ms`    (with `drip`)
//   /flaky/<500|502|503|504|reset>  fails `flaky_failures` times, then 200
//   /loop/a <-> /loop/b; /chain/0 -> ... -> /chain/<redirect_chain> (page)
//   /huge             claims and streams `huge_body_bytes`      (with `huge_body`)
//   RAW/bomb          gzip, `bomb_decoded_bytes` decoded        (with `gzip_bomb`)
//   RAW/ct/missing, /ct/wrong, /cs/bad-utf8, /cs/unknown        (with `bad_content`)
//   /deep             HTML nested `nesting_depth` deep          (with `deep_nesting`)
//   /million          `million_links_count` links, streamed     (with `million_links`)
//   /cal/<yyyy-mm-dd> links to the next day, forever            (with `calendar`)
//   /grow/, /grow/x/, /grow/x/x/ ...: each links to "x/"        (with `growing_urls`)
// Faults: with fault_rate > 0, some pages' first request fails (see below).
// RAW is a second listener on the same host (TestSite::RawBaseUrl) that writes
// bytes by hand, for what cpp-httplib cannot send.
// Anything else is 404. Routes added with TestSite::Handle win over these.
#ifndef TESTSITE_SITE_OPTIONS_H_
#define TESTSITE_SITE_OPTIONS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace testsite {

struct SiteOptions {
  // Number of HTML pages, root included. Every page is reachable from the root:
  // page i > 0 is a child of page (i - 1) / fanout in a tree whose fanout is
  // max(1, links_per_page / 2); the other links point at seeded random pages
  // (back links, cross links, duplicates), so de-duplication matters.
  uint64_t pages = 100;
  // Links to other pages on each page (tree links plus random ones), >= 1.
  // The odd-case links below come on top of these.
  int links_per_page = 10;
  // Delay before every generated response (not routes added with Handle).
  int latency_ms = 0;
  // 0 picks a free ephemeral port; see TestSite::port().
  int port = 0;
  // Seeds the random links, words and link forms. Same seed, same site.
  uint64_t seed = 1;
  // Address to listen on. Anything in 127.0.0.0/8 stays on loopback; several
  // sites on 127.0.0.1, 127.0.0.2, ... look like several hosts to a crawler.
  std::string host = "127.0.0.1";
  // Server worker threads. cpp-httplib holds one thread per open keep-alive
  // connection, so this bounds the client connections served at once; a crawler
  // with 32 connections needs more than the library's default of 8.
  int threads = 64;
  // Approximate size of each page's HTML; text is seeded filler so that
  // parsing costs something realistic.
  int page_bytes = 4096;
  // Seconds an idle keep-alive connection keeps its worker thread. It is also
  // the worst case of Stop() while a client still holds a connection open.
  int keep_alive_timeout_s = 1;
  // Let cpp-httplib gzip/brotli bodies when the client's Accept-Encoding asks.
  // Off by default: brotli at its default quality costs milliseconds a page
  // and would dominate throughput benchmarks.
  bool compress = false;
  // Record every request in RequestLog(); off for long benchmarks (each record
  // is about 100 bytes).
  bool keep_request_log = true;

  // --- Odd cases. Each adds links and routes; the expected page sets
  // (PageUrls, PageUrlsWithinDepth) never contain their URLs.
  // About one link in five goes through /r/<i> (301, Location absolute or
  // root-relative) instead of straight to the page.
  bool redirects = false;
  // About one page in three links to /f/<j>.txt or /f/<j>.pdf; their bodies
  // hold anchor text pointing at /trap/, which a crawler must not parse.
  bool non_html = false;
  // Pages whose index i has i % slow_every == slow_every - 1 answer after an
  // extra `slow_ms`.
  bool slow = false;
  int slow_ms = 200;
  int slow_every = 10;
  // The root links to /stall and /stall-body, which hold their request until
  // Stop(); a crawler must time them out.
  bool stalled = false;
  // About one page in four carries a rel="nofollow" link to /nofollow/<j>.html
  // (a real page, outside the expected set).
  bool nofollow = false;
  // About one page in four carries <base href="http://host:port/"> and writes
  // its relative links against it ("p/7.html"); a crawler that ignores <base>
  // requests /p/p/7.html, which is a 404 counted like a trap.
  bool base_href = false;

  // --- Hostile cases. None of their URLs is in PageUrls(); pages a
  // crawler may legitimately reach through them are /flaky/*, /chain/<last>,
  // /cs/target/*, /deep/top, /deep/bottom and /cal/*.
  // RAW/reset/headers sends half a header block, RAW/reset/body the headers and
  // 1 KiB of a promised 100 KiB; both then reset the connection (RST).
  bool resets = false;
  // /drip promises 1000 bytes and sends one every `drip_interval_ms`, so a
  // crawler must cut it by its timeout or low-speed rule.
  bool drip = false;
  int drip_interval_ms = 1000;
  // /flaky/<code> answers <code> (500, 502, 503, 504) and /flaky/reset drops
  // the connection mid-body for its first `flaky_failures` requests, then
  // serves a small page: a crawler with retries >= flaky_failures gets it.
  bool flaky = false;
  int flaky_failures = 2;
  // /loop/a and /loop/b redirect to each other; /chain/<i> redirects to
  // /chain/<i+1> up to /chain/<redirect_chain>, a page.
  bool redirect_traps = false;
  int redirect_chain = 10;
  // /huge announces Content-Length `huge_body_bytes` and streams filler HTML
  // until the client hangs up (nothing near 10 GB is ever sent).
  bool huge_body = false;
  uint64_t huge_body_bytes = uint64_t{10} << 30;
  // RAW/bomb: text/html, Content-Encoding gzip, compressed on the fly from
  // zeros: about 1 KB on the wire per MB decoded, `bomb_decoded_bytes` in all.
  bool gzip_bomb = false;
  uint64_t bomb_decoded_bytes = uint64_t{10} << 30;
  // RAW/ct/missing: HTML without a Content-Type; /ct/wrong: HTML sent as
  // image/png. Both link to /trap/ (a crawler must not parse them).
  // /cs/bad-utf8 (invalid UTF-8 bytes) and /cs/unknown (charset=x-klingon)
  // are HTML whose links to /cs/target/<n> must still be found.
  bool bad_content = false;
  // /deep: `nesting_depth` nested <div>s, with /deep/top linked before them
  // and /deep/bottom inside the innermost.
  bool deep_nesting = false;
  int nesting_depth = 100000;
  // /million: `million_links_count` links generated while streaming, to
  // http://<other loopback host>:port/m/<i>: off the site's host, so a crawler
  // scoped to the host extracts them all and fetches none.
  bool million_links = false;
  uint64_t million_links_count = 1000000;
  // /cal/2000-01-01 links to the next day, which links to the next...: an
  // infinite trap that depth or per-host limits must stop.
  bool calendar = false;
  // /grow/ links to the relative "x/", and so does every /grow/x/.../x/: a URL
  // two bytes longer per hop, forever, that --max-url-length must stop.
  bool growing_urls = false;
  // The root links to mailto:, javascript:, data:, tel:, ftp://, file://,
  // ws:// and gopher:// URLs, which a crawler must not fetch.
  bool odd_schemes = false;

  // --- Random faults (the stress test and bench/soak). A seeded
  // `fault_rate` fraction of the pages (chosen from `seed` and the page number,
  // so the same pages every run) fail their FIRST request, each with one of:
  // 500; 503 with Retry-After 0 or 1; a connection reset (RST) after half the
  // body; a body cut short (Content-Length promised, half sent, then FIN); or a
  // stall of `fault_stall_ms` after half the body, which then completes (a slow
  // page, not a failure). Every later request of the page succeeds, so a crawler
  // with --retries >= 1 and a timeout above fault_stall_ms fetches every page.
  // See TestSite::InjectedFaults and FailuresInjected.
  double fault_rate = 0;
  int fault_stall_ms = 300;
  // A 503's Retry-After is 0 or this (seeded, half each). A crawler pauses the
  // whole host for it, so a long soak sets 0 to stay fast.
  int fault_retry_after_s = 1;

  // --- Load (the adaptive-delay benchmark; testsite/src/server_load.h).
  // A token bucket of `rate_limit` requests a second (0 = none) holding at
  // most `rate_burst` tokens: a request finding it empty gets 429, with
  // Retry-After `rate_limit_retry_after` seconds when that is >= 0.
  double rate_limit = 0;
  int rate_burst = 5;
  int rate_limit_retry_after = -1;
  // Latency that grows with load (0 = none): every generated response waits
  // latency_ms x (1 + recent request rate / load_capacity), the rate
  // smoothed over ~1 s: twice latency_ms at load_capacity requests a second.
  double load_capacity = 0;

  // Body of /robots.txt (text/plain); empty serves 404.
  std::string robots_txt = "";

  // --- Change over time, for --recrawl (testsite/change_set.h has the rules).
  // The epoch served first (TestSite::SetEpoch changes it while serving);
  // 0 is the site above, unchanged.
  int epoch = 0;
  // Per epoch: the fraction of the base pages edited, removed (404 from then
  // on), and floor(added_fraction * pages) pages added, linked from the root.
  double changed_fraction = 0.05;
  double removed_fraction = 0.01;
  double added_fraction = 0.01;
  // Pages carry ETag ("<page>-<revision>") and Last-Modified (a day per
  // epoch of last change after 2020-01-01) and answer 304 to an
  // If-None-Match naming their ETag (or "*") or, without If-None-Match, to
  // an If-Modified-Since at or after Last-Modified (RFC 9110, 13.1-13.2).
  bool validators = false;
};

// Returns InvalidArgument naming the first bad field.
absl::Status ValidateSiteOptions(const SiteOptions& options);

}  // namespace testsite

#endif  // TESTSITE_SITE_OPTIONS_H_
