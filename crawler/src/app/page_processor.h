// PageProcessor: the parse step of the crawl, run on the parser threads. Turns
// one finished fetch into its pages.jsonl record and offers what it links to:
//   - a 3xx with a Location: the target (same depth, one more redirect hop,
//     bounded by --max-redirects) goes through the filter and the Sieve like a
//     link, so a redirect to a seen URL is not fetched again;
//   - a 2xx HTML page: ExtractLinks, then the LinkFilter at depth + 1, then
//     the trap defences (the page's content fingerprint against its host's
//     copies, then each link's URL), then the Frontier (one batch per page);
//   - anything else (errors, non-HTML, other statuses) is only recorded.
//
// Threading: Process is safe to call concurrently (the filter is const, the
// Frontier locks).
#ifndef CRAWLER_APP_PAGE_PROCESSOR_H_
#define CRAWLER_APP_PAGE_PROCESSOR_H_

#include <string>
#include <string_view>
#include <vector>

#include "app/crawl_stats.h"
#include "app/duplicate_content_guard.h"
#include "app/trap_guard.h"
#include "crawler/fetch.h"
#include "crawler/frontier.h"
#include "crawler/link_filter.h"
#include "crawler/links.h"
#include "crawler/output.h"
#include "crawler/url_parts.h"

namespace crawler {

class PageProcessor {
 public:
  // `traps` and `duplicates` may be null (no trap defences).
  PageProcessor(const LinkFilter* filter, Frontier* frontier, const LinkOptions& link_options,
                int max_redirects, TrapGuard* traps = nullptr,
                DuplicateContentGuard* duplicates = nullptr)
      : filter_(filter),
        frontier_(frontier),
        link_options_(link_options),
        max_redirects_(max_redirects),
        traps_(traps),
        duplicates_(duplicates) {}

  // The record of `result` (fetched for `url`); adds to `counts`. Without
  // `parse`, a 2xx page is recorded but not parsed (a recrawl's unchanged page).
  PageRecord Process(const CrawlUrl& url, FetchResult&& result, LinkCounts* counts,
                     bool parse = true) const;

  // Filters `candidates` (normalized URLs to be crawled at `depth`) and keeps
  // those to follow; counts the others.
  std::vector<std::string> Filter(std::vector<std::string> candidates, int depth,
                                  LinkCounts* counts) const;

 private:
  // A page's link that passed the filter: its URL (a view of the page's
  // link), split once, and its place among the page's links.
  struct PassedLink {
    std::string_view url;
    UrlParts parts;
    size_t index;
  };
  // Keeps in `passed`, in order, the links not walking into a trap; counts
  // the others.
  void AvoidTraps(std::vector<PassedLink>& passed, std::string_view from_host,
                  LinkCounts* counts) const;
  void FollowRedirect(const CrawlUrl& url, PageRecord* record, LinkCounts* counts) const;
  void FollowLinks(const CrawlUrl& url, const FetchResult& result, PageRecord* record,
                   LinkCounts* counts) const;

  const LinkFilter* const filter_;
  Frontier* const frontier_;
  const LinkOptions link_options_;
  const int max_redirects_;
  TrapGuard* const traps_;
  DuplicateContentGuard* const duplicates_;
};

}  // namespace crawler

#endif  // CRAWLER_APP_PAGE_PROCESSOR_H_
