// PreviousCrawl: an earlier crawl's pages.jsonl read for --recrawl,
// one line at a time: the file may hold 1e8 records, so it is streamed, never
// loaded. Every page it fetched (a 2xx, a 304 or a carried record) comes out
// as a CrawlUrl carrying its PreviousFetch: validators, digest, last fetch
// and revisit interval. A redirect or a failure (an error, a 5xx, a 4xx
// other than 404/410, a URL robots.txt or the host's budget kept from the
// fetcher) comes out with no PreviousFetch: it is asked again as a first
// visit would, since an unchanged page that links to it is not parsed
// again. A page gone (404, 410), or refused for its type (--accept-type,
// --reject-type), is not revisited.
//
//   RevisitBounds bounds{3600, 30 * 86400};
//   absl::StatusOr<PreviousCrawlReport> read = ForEachPreviousPage(
//       "crawl-1", bounds, /*strict=*/false, [&](CrawlUrl url) { frontier.Offer(url); });
//
// A damaged line (not JSON, no "url", a field of the wrong type) is an
// InvalidArgument error naming the file and line with `strict`; otherwise it
// is skipped, counted, and the first few are logged with the same words.
//
// Threading: a free function; `each` runs on the calling thread.
#ifndef CRAWLER_APP_PREVIOUS_CRAWL_H_
#define CRAWLER_APP_PREVIOUS_CRAWL_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "crawler/host_queues.h"

namespace crawler {

// --revisit-min / --revisit-max, seconds.
struct RevisitBounds {
  int64_t min_s = 3600;
  int64_t max_s = 30 * 86400;
};

struct PreviousCrawlReport {
  int64_t lines = 0;          // lines read
  int64_t pages = 0;          // handed to `each` with a PreviousFetch
  int64_t asked_again = 0;    // handed to `each` without: redirects and failures
  int64_t skipped_lines = 0;  // damaged (only without strict)
};

// Calls `each` for every URL of `previous_out`/pages.jsonl but those gone,
// in file order. A record without revisit_s (written before --recrawl existed) gets
// bounds.min_s; any is clamped into the bounds. InvalidArgument (a usage
// error) when the file is missing, or for a damaged line with `strict`.
absl::StatusOr<PreviousCrawlReport> ForEachPreviousPage(
    const std::string& previous_out, const RevisitBounds& bounds, bool strict,
    const std::function<void(CrawlUrl url)>& each);

}  // namespace crawler

#endif  // CRAWLER_APP_PREVIOUS_CRAWL_H_
