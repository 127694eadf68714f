// Output: what a crawl leaves on disk. `PageLog` appends one JSON object per
// fetch to `pages.jsonl`; `WriteSummary` writes `summary.json` at the end.
//
// Every line of pages.jsonl is whole: a record is serialized first, then
// appended under a lock in one write, and the file is flushed at least every
// `flush_every` records or `flush_interval`, so a crawl killed with SIGKILL
// keeps every page up to the last flush and never a torn line.
//
//   auto log = crawler::PageLog::Open({.dir = "crawl-out"});
//   if (!log.ok()) return log.status();
//   (*log)->Append(record);            // from any thread
//   (*log)->Close();                   // flushes; also done by the destructor
//   crawler::WriteSummary("crawl-out", summary);
//
// Threading: `PageLog::Append`, `Flush` and `Written` are safe to call
// concurrently; `Close` once, after the last `Append`.
#ifndef CRAWLER_OUTPUT_H_
#define CRAWLER_OUTPUT_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace crawler {

// How a recrawl's record compares with the previous crawl (--recrawl). In
// JSON, one `<name>: true` (not_modified, unchanged, changed, gone,
// carried); kNone and kNew write nothing.
enum class Revisit {
  kNone,         // not a recrawl's page, or one with no verdict (an error, a redirect)
  kNew,          // a 2xx page the previous crawl did not have
  kNotModified,  // a 304 to the conditional GET
  kUnchanged,    // a 200 whose digest is the previous one
  kChanged,      // a 200 with another digest: parsed, its links followed
  kGone,         // a 404 or 410 of a page the previous crawl fetched
  kCarried,      // not due yet: copied from the previous record, no request
};

// One fetch, as recorded in pages.jsonl. Field names are the JSON keys.
struct PageRecord {
  std::string url;           // the URL we asked for
  std::string final_url;     // where the response came from (same unless curl moved)
  int status = 0;            // HTTP status; 0 when no response arrived
  std::string content_type;  // as sent by the server, "" when absent
  int64_t bytes = 0;         // body bytes received (decoded)
  int depth = 0;             // seeds are depth 0
  std::string parent;        // the page that linked here; "" for seeds (null in JSON)
  absl::Time fetched_at;     // when the transfer started (RFC 3339 in JSON)
  double fetch_ms = 0;       // transfer duration
  int links_found = 0;       // links extracted from the page (0 when not parsed)
  int links_new = 0;         // of those, how many the Sieve accepted as new
  std::string redirect_to;   // for 3xx: the Location target ("" when none)
  std::string error;         // "" when none (null in JSON); else "<kind>: <detail>"
  int attempts = 1;          // fetches of `url` (retries, retry_queue.h); this is the last
  // The body was cut (at --max-body: error "body_too_large") or parsed only in
  // part (a parse cap: links.h): its first `parsed_bytes` bytes were parsed
  // for links. Both absent from the JSON unless truncated.
  bool truncated = false;
  int64_t parsed_bytes = 0;
  std::string truncated_reason;  // "max_body", or the parse cap (PageLinks::truncated_reason)
  // The response's validators, for a later --recrawl's conditional GET, and
  // the body's digest ("sha1:" + base32, as WARC-Payload-Digest): set for
  // every 2xx page whose body arrived whole; absent from the JSON when empty.
  std::string etag;           // the ETag header's value, quotes and W/ kept
  std::string last_modified;  // the Last-Modified header's value, as sent
  std::string digest;
  // The URL's revisit interval after this fetch, seconds (--recrawl); 0 (absent
  // in JSON) for records that are not 2xx pages or 304s.
  int64_t revisit_s = 0;
  Revisit revisit = Revisit::kNone;
  // With --warc: the file holding this fetch's response (or revisit) record
  // and the offset of its gzip member. Absent from the JSON when empty.
  std::string warc_file;
  uint64_t warc_offset = 0;
};

// The JSON object for one record, as one line without the newline.
std::string PageRecordToJson(const PageRecord& record);

// The kind of an error string: the text before the first ':' ("timeout: ..." ->
// "timeout"), or the whole text when there is no colon. Used for summary counts.
std::string ErrorKind(const std::string& error);

struct PageLogOptions {
  std::string dir = "crawl-out";  // created if missing
  std::string file_name = "pages.jsonl";
  // A crawl killed between flushes loses at most this many records / this much
  // time; smaller costs one write(2) per flush, invisible next to a fetch.
  int flush_every = 64;
  absl::Duration flush_interval = absl::Seconds(1);
  bool append = false;  // false truncates an existing file
};

class PageLog {
 public:
  // Creates `options.dir` if needed and opens the file.
  static absl::StatusOr<std::unique_ptr<PageLog>> Open(const PageLogOptions& options);
  ~PageLog();
  PageLog(const PageLog&) = delete;
  PageLog& operator=(const PageLog&) = delete;

  // Appends one line. Fails only on a write error (disk full), after which the
  // log stays failed and further appends return the same error.
  absl::Status Append(const PageRecord& record);
  absl::Status Flush();
  absl::Status Close();
  int64_t Written() const;
  const std::string& path() const { return path_; }

 private:
  PageLog(std::FILE* file, std::string path, const PageLogOptions& options);
  absl::Status FlushLocked();  // requires mu_
  // Starts the kernel's writeback of what was flushed since the last start,
  // once that is kWritebackStep or more, without waiting for it.
  void StartWritebackLocked();  // requires mu_

  const std::string path_;
  const PageLogOptions options_;
  mutable std::mutex mu_;
  std::FILE* file_ ABSL_GUARDED_BY(mu_);
  int64_t written_ ABSL_GUARDED_BY(mu_) = 0;
  int unflushed_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time last_flush_ ABSL_GUARDED_BY(mu_);
  int64_t writeback_from_ ABSL_GUARDED_BY(mu_) = 0;  // file offset
  absl::Status error_ ABSL_GUARDED_BY(mu_);
};

// One server's entry in summary.json's "servers.busiest": the crawl's
// grouping of hosts by the address and port they resolve to (--per-ip,
// --ip-delay; docs/politeness.md).
struct ServerSummary {
  std::string address;      // the key: "ADDR:PORT"
  int64_t starts = 0;       // fetches started on it
  int64_t slot_waits = 0;   // a host ready on its own waited for a free connection
  int64_t delay_waits = 0;  // ... for the server's start interval
};

// One authority's line in summary.json's "hosts" object.
struct HostSummary {
  std::string authority;       // the key: "http://host:port"
  int64_t pages = 0;           // records of its URLs (errors and robots included)
  int64_t errors = 0;          // records with an error
  int64_t robots_blocked = 0;  // records with error kind "robots"
  double mean_delay_ms = 0;    // mean gap between consecutive request starts, as scheduled
  // The smallest of those gaps, in this run (checkpoints do not keep it: a
  // resumed crawl's counts from its own first gap); 0 with fewer than two
  // starts. The scheduler hands a host's URL out at the same clock reading it
  // checks the host's delay against, so this is >= the delay exactly (but
  // for URLs the robots gate held back until robots.txt came: they start
  // then); a server sees the gaps shrink or grow by each transfer's set-up.
  double min_delay_ms = 0;
  int64_t delay_samples = 0;  // gaps behind the mean (checkpoints keep it; not in summary.json)
  // The host's start interval at its last start: the larger of --delay (or
  // its [[hosts]] delay) and Crawl-delay, or with --adaptive-delay the
  // adaptive delay then (not kept in checkpoints: 0 until the host's first
  // start after a resume).
  double delay_ms = 0;
  std::string dropped;  // why the host was dropped; "" (null in JSON) if not
};

// The Sieve's measured false-positive rate (sieve::MeasuredFpRate, docs/fp-rate.md),
// as summary.json reports it. Every number is finite and >= 0.
struct MeasuredLoss {
  uint64_t sample_one_in = 1;            // S: 1 URL in S is in the exact sample
  uint64_t sampled_urls = 0;             // n: distinct sampled URLs
  uint64_t sampled_false_positives = 0;  // f: of those, wrongly dropped as seen
  uint64_t sample_bytes = 0;
  uint64_t accepted = 0;  // URLs the Sieve accepted (exact), the base of the loss's share
  double rate = 0;        // f / n, with its 95% interval
  double rate_low = 0;
  double rate_high = 0;
  double wrongly_dropped = 0;  // new URLs wrongly dropped so far, with its 95% interval
  double wrongly_dropped_low = 0;
  double wrongly_dropped_high = 0;
};

// What summary.json holds. Filter fields come from the Sieve's Stats().
struct CrawlSummary {
  int64_t pages = 0;     // records written (every fetch attempt)
  int64_t pages_ok = 0;  // 2xx responses
  int64_t bytes = 0;     // body bytes
  double duration_s = 0;
  std::map<std::string, int64_t> errors_by_kind;  // ErrorKind(error) -> count
  std::map<int, int64_t> status_counts;           // HTTP status -> count (0: no response)
  int64_t links_found = 0;
  int64_t links_new = 0;
  int64_t off_scope = 0;        // links dropped by scope/allow/deny before the Sieve
  int64_t over_depth = 0;       // links dropped by --max-depth
  int64_t too_long = 0;         // links dropped by --max-url-length
  int64_t over_host_limit = 0;  // links dropped by --max-pages-per-host
  int64_t rejected = 0;         // links that did not resolve to an http(s) URL
  int64_t nofollow_skipped = 0;
  // Links not fetched for their extension (--reject-ext; summary.json
  // "rejected_ext"; not kept in checkpoints: a resumed crawl counts from zero).
  int64_t rejected_ext = 0;
  // Links not followed by a trap defence (summary.json "traps"; not kept in
  // checkpoints: a resumed crawl counts from zero).
  int64_t trap_host_budget = 0;
  int64_t trap_query_variants = 0;
  int64_t trap_repeated_segments = 0;
  int64_t trap_duplicate_content = 0;
  int64_t redirects = 0;        // 3xx responses with a Location
  int64_t robots_fetches = 0;   // robots.txt requests (not pages; redirect hops included)
  int64_t robots_blocked = 0;   // URLs not fetched: disallowed or robots.txt unreachable
  int64_t sitemap_fetches = 0;  // sitemap files requested (--sitemaps; not pages)
  int64_t sitemap_urls = 0;     // page URLs listed in them, before scope and dedup
  // The Sieve's estimate of distinct URLs accepted; null when the filter is
  // saturated (every bit set: the estimate is infinite), then filter_saturated.
  std::optional<int64_t> seen_estimate = 0;
  bool filter_saturated = false;
  int64_t queued_at_end = 0;  // URLs still queued (page limit or interrupt)
  int64_t filter_bytes = 0;
  double filter_fp_rate = 0;  // current false-positive rate of the filter, computed from its fill
  double filter_fill = 0;
  // The last checkpoint of this run (--state): wall time and bytes written
  // (hard-linked spilled segments not counted); 0 when none.
  int64_t last_checkpoint_ms = 0;
  int64_t last_checkpoint_bytes = 0;
  // The rate measured on the Sieve's exact sample and the new URLs it says
  // were wrongly dropped (docs/fp-rate.md); null when not measured.
  std::optional<MeasuredLoss> fp_measured;
  // Why a field is null: field name -> reason ("null_reasons" in summary.json).
  std::map<std::string, std::string> null_reasons;
  bool interrupted = false;  // SIGINT/SIGTERM ended the crawl
  // "drained", "max-pages", "signal", or "error" (a failed checkpoint or a
  // broken URL queue; the message is on stderr and in the exit status).
  std::string stop_reason;
  // Per-host counters, busiest first, at most 10 000 (see app/host_stats.h);
  // hosts_not_listed counts the others.
  std::vector<HostSummary> hosts;
  int64_t hosts_not_listed = 0;
  // The grouping by server, this run (not kept in checkpoints); summary.json's
  // "servers": servers counted (at most 10 000), waits of a host ready on its
  // own for a server's connection (or the fleet's lease) and for its start
  // interval, and the kServersListed servers with the most starts.
  int64_t servers_counted = 0;
  int64_t server_slot_waits = 0;
  int64_t server_delay_waits = 0;
  static constexpr size_t kServersListed = 10;
  std::vector<ServerSummary> busiest_servers;
  // --recrawl: records of each Revisit kind, body bytes not
  // downloaded (304s and carried records: the previous body's size), and
  // damaged lines of the previous pages.jsonl skipped. summary.json's
  // "recrawl" object, null unless `recrawl`.
  bool recrawl = false;
  int64_t not_modified = 0;
  int64_t unchanged = 0;
  int64_t changed = 0;
  int64_t new_pages = 0;
  int64_t gone = 0;
  int64_t carried = 0;
  int64_t bytes_saved = 0;
  int64_t previous_lines_skipped = 0;
};

std::string CrawlSummaryToJson(const CrawlSummary& summary);

// Writes `dir`/summary.json atomically (temporary file, then rename).
absl::Status WriteSummary(const std::string& dir, const CrawlSummary& summary);

}  // namespace crawler

#endif  // CRAWLER_OUTPUT_H_
