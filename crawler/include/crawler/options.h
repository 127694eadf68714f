// CrawlOptions: every knob of one crawl, with its default and its trade-off.
//
// The defaults below are the single source of truth; config/crawl.toml mirrors
// them field for field (a test loads that file and compares it with a
// default-constructed CrawlOptions). A run's options are built in three layers:
// these defaults, then a TOML file (--config), then command-line flags.
//
//   absl::StatusOr<crawler::CrawlOptions> options =
//       crawler::LoadConfigFile("config/crawl.toml", crawler::CrawlOptions{});
//   if (!options.ok()) return Exit(2, options.status());   // names key and file
//
// Threading: CrawlOptions is a plain value; the functions here are pure and
// safe to call from any thread.
#ifndef CRAWLER_OPTIONS_H_
#define CRAWLER_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace crawler {

// Which links a crawl follows, relative to its seeds.
enum class Scope {
  kHost,    // only the exact hosts of the seeds (www.a.com does not reach a.com)
  kDomain,  // the registrable domains of the seeds (public-suffix list, libpsl)
  kAny,     // everything reachable; bound it with max_pages / max_depth
};

// "host", "domain", "any".
std::string_view ScopeName(Scope scope);
// Inverse of ScopeName; any other text is an InvalidArgumentError.
absl::StatusOr<Scope> ParseScope(std::string_view text);

// One [[hosts]] table of the config file: per_host and delay for the hosts
// matching `pattern` (a glob: "*.example.org", "127.0.0.1:8080"; see
// polite_policy.h). The first matching table wins. File only, no flag.
struct HostRule {
  std::string pattern;
  int per_host = 0;        // 0 = the global per_host
  double delay_s = -1;     // < 0 = the global delay
  int per_ip = -2;         // < -1 = the global per_ip (-1 = its automatic value)
  double ip_delay_s = -1;  // < 0 = the global ip_delay
  // Request headers "Name: value" for this host's requests, after --header.
  std::vector<std::string> headers;
  // HTTP authentication for this host's requests only (never for a redirect
  // target elsewhere: each request is matched by its own URL). Empty user =
  // none. auth: "basic", "digest" or "any". The password never reaches a log,
  // pages.jsonl, the warcinfo record or a WARC request record (there the
  // Authorization value is "[redacted]").
  std::string user;
  std::string password;
  std::string auth = "basic";
  bool operator==(const HostRule&) const = default;
};

// One [[priority]] table of the config file: URLs matching `url` (an RE2
// pattern, matched partially against the normalized URL) or whose authority
// matches `host` (a glob as in [[hosts]]) get `delta` added to their
// priority. Every matching table adds (see crawler/link_priority.h). File
// only; --prefer and --defer are the flags for the common case.
struct PriorityRule {
  std::string url;   // "" = any URL (then `host` must be set)
  std::string host;  // "" = any host
  int delta = 0;
  bool operator==(const PriorityRule&) const = default;
};

// TOML section and key in comments: [section] key. Flags are --kebab-case.
struct CrawlOptions {
  // ---- [seeds] ----
  // File of start URLs, one per line (see seeds.h); "-" reads them from
  // standard input (bounded as a file is). Required unless --resume or
  // seed_urls.
  std::string seeds_file;
  // Start URLs given on the command line (`crawl https://example.org/`),
  // crawled after the seeds file's. Not in the file and not a flag: the
  // arguments that are not options.
  std::vector<std::string> seed_urls;
  // A malformed seed line is fatal instead of reported and skipped.
  bool strict = false;

  // ---- [crawl] ----
  // Number of distinct URLs the crawl expects to see. Sizes the Bloom filter:
  // bits = -n ln(p) / ln(2)^2, i.e. ~9.6 bits per URL at p = 1%, so the
  // default costs ~1.2 MB. Too small an estimate raises the false-positive rate
  // (URLs wrongly skipped as seen); too large wastes memory. Must be > 0.
  uint64_t expected = 1'000'000;
  // Target false-positive rate of the seen-set, in (0, 1). Halving it costs
  // ~1.44 more bits per URL; a false positive means a page never crawled.
  double fp_rate = 0.01;
  // Stop after this many pages fetched; 0 = unlimited.
  uint64_t max_pages = 0;
  // Stop this many pages per host (authority); 0 = unlimited.
  uint64_t max_pages_per_host = 0;
  // Links deeper than this many hops from a seed are not followed; seeds are
  // depth 0. -1 = unlimited.
  int max_depth = -1;
  // Which links to follow relative to the seeds (see Scope).
  Scope scope = Scope::kHost;
  // RE2 patterns matched (partially) against the full URL. A URL must match at
  // least one `allow` (when any is given) and no `deny`. Repeatable flags.
  std::vector<std::string> allow;
  std::vector<std::string> deny;
  // Links whose path ends in one of these extensions are never fetched
  // ("pdf,zip,mp4"; a list per item, case ignored; see type_filter.h);
  // counted in summary.json "rejected_ext". Sitemap URLs and redirect
  // targets pass the same check; seeds do not.
  std::vector<std::string> reject_ext;
  // Priorities (docs/crawler.md, "Order"): which ready URL goes first. URLs
  // matching a `prefer` pattern get +10, a `defer` pattern -10 (each
  // matching pattern counts), `depth_priority` * depth is subtracted (Scrapy's
  // DEPTH_PRIORITY: positive = breadth first even across priorities,
  // negative = deeper first), and [[priority]] tables add their deltas; the
  // sum is clamped to [-512, 511]. None given: every URL at 0, the order of
  // a crawl without priorities exactly. A Redis frontier keeps them too
  // (its range is the same: sieve::kRedisMinPriority..kRedisMaxPriority).
  std::vector<std::string> prefer;
  std::vector<std::string> defer;
  int depth_priority = 0;
  std::vector<PriorityRule> priorities;
  // A sitemap's <priority> p (0.0-1.0, default 0.5) adds
  // round(sitemap_priority x (p - 0.5) x 2) to its URLs' priority: at 10, a
  // page at 1.0 gets +10 (as --prefer), one at 0.0 -10. 0: ignored.
  int sitemap_priority = 0;
  // Follow links marked rel=nofollow (and pages with meta robots nofollow).
  bool ignore_nofollow = false;
  // Who finds a page's links: "scanner" (the tokenizer-speed link scanner,
  // Gumbo on what it cannot decide) or "gumbo" (always Gumbo's tree). Both
  // yield the same links (crawler/links.h, LinkParser).
  std::string parser = "scanner";
  // URLs longer than this (bytes, after normalization) are dropped; guards the
  // queue against calendar traps and session-id explosions.
  size_t max_url_length = 2048;
  // Crawler-trap defences (docs/reliability.md; 0 turns one off). Links that
  // hit one are not followed, counted in summary.json "traps", and logged
  // once per host or path.
  // Pages per host, plus 1000 per other host seen linking to it (IRLbot's
  // budget): 250 000 keeps a large single site whole and ends a calendar or
  // session-id trap on a host nobody links to.
  uint64_t trap_host_budget = 250000;
  // Pages fetched with a query per (host, path): past it, links to that path
  // with a query are not followed (a session id or a "?date=" that changes
  // on every visit).
  uint64_t trap_query_variants = 1000;
  // A run of 1-3 path segments repeated this many times in a row
  // ("/a/b/a/b/a/b/") is a relative-link loop, not a page.
  uint64_t trap_repeated_segments = 3;
  // Pages of one host with the same content (PageFingerprint, within 3 of 64
  // bits) whose links are followed: past it, links from further copies are
  // not (a session-id trap serving one page under ever new ids). 100: a
  // trap then costs ~100 x its links per page, while the most near-identical
  // pages of a real site measured here are 7 (libstdc++'s doxygen stubs; the
  // Python docs have none, docs/reliability.md).
  uint64_t trap_duplicate_content = 100;

  // ---- [fetch] ----
  // Worker threads parsing pages and feeding the queue. Fetching itself is
  // asynchronous (curl multi), so a few threads saturate many connections.
  int threads = 2;
  // Threads driving the transfers, each a curl multi handle with its share of
  // --connections (at most one per connection). Two keep hundreds of
  // transfers busy; more only take cores from the parsers.
  int fetch_threads = 2;
  // Total concurrent transfers across all hosts.
  int connections = 64;
  // Concurrent transfers per authority (host:port). Higher is faster and ruder.
  int per_host = 2;
  // Minimum seconds between the starts of two requests to the same host.
  // Flag and file accept "200ms", "1s", "1.5", "0".
  double delay_s = 1.0;
  // Concurrent transfers to one server (resolved address and port) across
  // all the host names it serves. -1 = max(4, the host's per_host): a
  // shared host with a thousand names gets 4 connections, not 2000, and a
  // single host is never held below its own per_host. 0 = no limit.
  int per_ip = -1;
  // Minimum time between two request starts on one server: a duration, or
  // "auto" = the host's delay / 4 (four times one host's rate at most; a
  // single host, started once per delay, never waits for it).
  std::string ip_delay = "auto";
  // Per host, move the delay between delay_s (the floor) and 10 s by the
  // host's answers: faster while quick and successful, slower on 429/503,
  // failures and rising latency (docs/politeness.md). Off by default.
  bool adaptive_delay = false;
  // User-Agent header; also the agent name matched in robots.txt.
  std::string user_agent = "crawl/0.1";
  // Whole-transfer timeout in seconds; connect_timeout_s bounds only the
  // TCP+TLS handshake.
  double timeout_s = 30;
  double connect_timeout_s = 10;
  // Largest body kept, in bytes ("10MiB"); longer bodies are truncated.
  uint64_t max_body = 10 << 20;
  // Redirect hops followed per request.
  int max_redirects = 5;
  // Retries of a transient failure (timeout, 5xx, reset), with backoff.
  int retries = 2;
  // Wait before the first retry; retry k waits retry_backoff_s * 2^(k-1)
  // (see retry_queue.h). Longer spares a struggling server; tests use "10ms".
  double retry_backoff_s = 1.0;
  // Obey robots.txt ("on"/"off" on the command line, true/false in TOML).
  bool robots = true;
  // First wait before refetching an unreachable robots.txt (5xx, timeout);
  // doubles per failure up to an hour. After `retries` + 1 unreachable
  // answers in a row the host's URLs are recorded "robots_unreachable".
  // Whole seconds (at least 1): shorter finds a recovered host sooner.
  double robots_retry_s = 60;
  // Fetch the Sitemap: files named in robots.txt (indexes 3 levels deep,
  // plain or gzip) and crawl their URLs at depth 1, in scope rules applied.
  bool sitemaps = false;
  // Sitemaps to fetch at the start besides those robots.txt lists (--sitemap,
  // repeatable): absolute http(s) URLs, indexes and .xml.gz as above, their
  // URLs offered at depth 1 under the same scope rules. Fetched again on
  // --resume (their URLs are then seen). Works with --robots off too.
  std::vector<std::string> sitemap_urls;
  // Media type patterns ("text/html", "image/*"; see type_filter.h) for the
  // responses kept: a 2xx response whose Content-Type is not accepted, or is
  // rejected, is aborted as its body starts (not downloaded) and recorded
  // with error "type_rejected". Empty accept_types = every type. reject wins.
  // robots.txt and sitemaps are never refused.
  std::vector<std::string> accept_types;
  std::vector<std::string> reject_types;
  // Refuse private, loopback and link-local addresses: "on", "off", or "auto"
  // (refused unless a seed itself is such an address, so local tests work).
  std::string block_private = "auto";
  // Proxy for every request (http://, https://, socks5://, socks5h://; may
  // carry USER:PASS@, redacted in the warcinfo record). Empty: the standard
  // environment variables (http_proxy, https_proxy, all_proxy, no_proxy)
  // decide, as for curl and wget, unless no_proxy_env.
  std::string proxy;
  // Ignore the proxy environment variables (the crawl goes direct unless
  // `proxy` is set).
  bool no_proxy_env = false;
  // Extra request headers "Name: value" on every request (--header,
  // repeatable); [[hosts]] adds per-host ones. Redacted in the warcinfo record.
  std::vector<std::string> headers;
  // One cookie jar per crawl: cookies servers set are sent back (--cookies
  // on|off). load_cookies: a Netscape cookie file (wget's, curl's) read at
  // the start; save_cookies: the jar written there at the end.
  bool cookies = true;
  std::string load_cookies;
  std::string save_cookies;
  // TLS, as wget and curl name it. ca_certificate: the
  // PEM bundle servers are verified against instead of the system's;
  // no_check_certificate: verify nothing (warned loudly); certificate and
  // private_key: a client certificate for servers that ask for one.
  std::string ca_certificate;
  bool no_check_certificate = false;
  std::string certificate;
  std::string private_key;
  // "HOST:PORT:ADDRESS[,ADDRESS...]" (repeatable): connect to ADDRESS for
  // HOST at PORT, as curl's --resolve (CURLOPT_RESOLVE); the URL, the Host
  // header and the TLS name stay HOST's.
  std::vector<std::string> resolve;
  // [[hosts]] overrides of per_host and delay, headers and credentials
  // (array of tables; see HostRule).
  std::vector<HostRule> hosts;

  // ---- [queue] ----
  // Memory for the in-RAM part of the to-visit queue ("64MiB"); beyond it the
  // FIFO spills to disk under spill_dir.
  uint64_t queue_memory = 64 << 20;
  // Where the queue spills. Empty = "<out_dir>/spill" (ParseCrawlCommand fills
  // it in). Keep it on the state directory's filesystem (the defaults are):
  // a checkpoint then hard-links the immutable spilled segments instead of
  // copying them, so its cost does not grow with the queue. The crawl logs a
  // warning when they are on different filesystems.
  std::string spill_dir;
  // When more URLs arrive than `expected`: "grow" (add Bloom filter stages:
  // the rate stays under fp_rate, memory grows, a warning at each doubling
  // says how much it takes) or "warn" (memory fixed, the rate degrades and new
  // URLs are lost; a warning says by how much).
  std::string overflow = "grow";
  // With "grow": the most memory the seen-filter may take (0 = no cap). Past
  // it the filter behaves as "warn", and a warning says so once.
  uint64_t filter_memory_max = 0;
  // A to-visit queue shared by many crawl processes: "redis://HOST:PORT/NAME",
  // or "redis-cluster://HOST:PORT[,HOST:PORT...]/NAME" for a Redis Cluster
  // (sieve/redis_sieve.h; README "Crawling with several machines"). Empty =
  // the in-memory Sieve. With it, checkpoints are off and --resume refused.
  std::string frontier;

  // ---- [output] ----
  // Directory of the crawl's results.
  std::string out_dir = "crawl-out";
  // Archive every response (and its request) as WARC 1.1 in
  // PREFIX-00000.warc.gz, -00001, ... (see warc.h). Empty = no WARC. Costs a
  // sha1 and a gzip of each body on the fetcher threads (~15% fewer pages/s
  // on the testsite crawl, bench/warc-crawl) and ~2.6 KB on disk per 5 KB page.
  std::string warc_prefix;
  // A WARC file is closed and the next one begun before it would pass this
  // many bytes ("1GiB", >= 1024). Heritrix's default; smaller files are
  // easier to move, more files to list.
  uint64_t warc_max_size = uint64_t{1} << 30;

  // ---- [state] ----
  // Checkpoint directory. Empty = "<out_dir>/state" (filled in by
  // ParseCrawlCommand).
  std::string state_dir;
  // Continue from the checkpoint in state_dir. Conflicts with `fresh`.
  bool resume = false;
  // Discard an existing checkpoint and start over. Conflicts with `resume`.
  bool fresh = false;
  // Seconds between checkpoints; shorter loses less on a crash, costs more I/O.
  double checkpoint_every_s = 60;

  // ---- [recrawl] (docs/crawler.md, "Recrawling") ----
  // An earlier crawl's --out: its pages.jsonl is streamed (never loaded
  // whole) and every page it fetched is a seed with its validators, digest
  // and revisit interval; pages not due are carried into this crawl's
  // pages.jsonl without a request. Empty = a first crawl. Must not be out_dir.
  std::string recrawl;
  // A URL's revisit interval (its records' revisit_s) starts at revisit_min_s,
  // halves when the page changed and doubles when it did not, within these
  // bounds. Shorter finds changes sooner and costs more requests.
  double revisit_min_s = 3600;
  double revisit_max_s = 30 * 86400;

  // ---- [log] ----
  // "trace", "debug", "info", "warn", "error" or "off".
  std::string log_level = "info";
  // No progress output; warnings and errors still go to stderr.
  bool quiet = false;
  // Log lines on stderr: "text" (UTC time with its offset, level, message;
  // colored on a terminal unless NO_COLOR is set) or "json" (one object per
  // line: {"time":"2026-11-25T21:30:00.123Z","level":"info","message":"..."}),
  // the progress line included.
  std::string log_format = "text";
  // Serve Prometheus metrics at http://ADDR:PORT/metrics during the crawl
  // (crawler/metrics.h lists them); "" = off. "9100" or ":9100" listens on
  // 127.0.0.1 only; "HOST:PORT" on exactly that host ("0.0.0.0:9100" opens
  // them to the network: only when typed). Port 0 = any free one (logged).
  std::string metrics;
  // Write the pipeline's stage depths every 10 ms to this file ("" = off):
  // transfers scheduled, queued and running, the parse backlog, the
  // Frontier's and the Sieve's queues, what the scheduler waits for and how
  // often it sleeps (tab-separated, a header line first). For finding where
  // a crawl stalls; costs well under 1% of a core when on.
  std::string debug_pipeline;

  // Not in the file: the config file the options came from ("" = built-in).
  std::string config_file;

  bool operator==(const CrawlOptions&) const = default;
};

// Reads a TOML file on top of `base`: keys present in the file replace base's
// values (arrays replace, they do not append). An unreadable file, a syntax
// error, an unknown key, a wrong type or a bad value is an InvalidArgumentError
// naming the file and the key, e.g. "crawl.toml: unknown key 'fetch.foo'".
// Sets config_file = path.
absl::StatusOr<CrawlOptions> LoadConfigFile(const std::string& path, CrawlOptions base);

// Checks every field against the bounds its flag has (for options built in
// code rather than parsed; fp_rate in (0, 1), allow/deny compile with RE2...),
// then what single fields cannot: resume with fresh, per_host above
// connections, and a missing seeds file name when not resuming. The message
// names the offending flag: "--fp-rate: 2 is not in (0, 1)".
absl::Status ValidateCrawlOptions(const CrawlOptions& options);

// Every option as "flag: value" lines, in --help order, each value as a user
// would write it ("max-body: 10MiB", "robots: on"); a line break inside a
// value becomes a space, so each option stays one line. For the WARC
// warcinfo record (WARC 1.1 section 6.1 "key: value" fields).
std::string OptionsAsLines(const CrawlOptions& options);

}  // namespace crawler

#endif  // CRAWLER_OPTIONS_H_
