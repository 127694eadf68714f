// TrapGuard: the crawler-trap defences. Without them a session-id trap
// ("?token=N" new on every visit) ran 282 889 pages in 60 s; a calendar
// ("next day" forever) 257 044. Three checks, in the spirit of IRLbot's
// budgets and Heritrix's path-repetition and query-explosion rules, each off
// at 0 (CrawlOptions::trap_*):
//
//   host budget      a host gets trap_host_budget pages, plus 1000 for each
//                    other host seen linking to it; links to a host past its
//                    budget are not followed.
//   query variants   pages fetched with a query per (host, path); past
//                    trap_query_variants, links to that path with a query are
//                    not followed.
//   repeated path    a run of 1-3 segments repeated trap_repeated_segments
//                    times in a row ("/a/b/a/b/a/b/").
//
//   TrapGuard guard(options);
//   guard.OnPageFetched(url);                             // every page recorded
//   if (TrapKind trap = guard.Check(link, page_host); trap != TrapKind::kNone) skip;
//
// Bounds: fixed tables indexed by hash, whatever the crawl's size: 2^18 hosts
// x (4 B pages + 8 B in-link bitmap) and 2^18 paths x 4 B, 4 MiB in all,
// allocated zeroed (pages the crawl never touches cost no RAM). Hosts (or
// paths) sharing a slot share a count, which can only cut earlier; at 2^18
// slots two of 10 000 hosts share one with probability ~4% each, and both
// must then be large for it to matter. In-link hosts are estimated by linear
// counting on 64 bits: accurate to ~10% up to ~100 hosts, saturating at 266.
// Slots come from XXH3 (bloom::HashKey), the same in every run, so the counts
// can be checkpointed: Encode/Decode below, kept as traps.txt in the crawl's
// state (crawl_state.h, version 4) and restored on --resume, so a resumed
// crawl does not give a trap a fresh budget. A page being parsed at the
// checkpoint is fetched again after a resume and counted twice (at most one
// per parser thread).
//
// Threading: every method is safe to call concurrently (relaxed atomics: a
// count may run over its cap by the number of parser threads).
#ifndef CRAWLER_APP_TRAP_GUARD_H_
#define CRAWLER_APP_TRAP_GUARD_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "crawler/options.h"
#include "crawler/url_parts.h"

namespace crawler {

enum class TrapKind { kNone, kHostBudget, kQueryVariants, kRepeatedSegments };

class TrapGuard {
 public:
  explicit TrapGuard(const CrawlOptions& options);
  ~TrapGuard();
  TrapGuard(const TrapGuard&) = delete;
  TrapGuard& operator=(const TrapGuard&) = delete;

  // `url` (normalized) was fetched and recorded.
  void OnPageFetched(std::string_view url);
  // Whether following `url`, found on a page of host `from_host`, walks into
  // a trap. Also counts from_host as linking to url's host.
  TrapKind Check(std::string_view url, std::string_view from_host);
  // The same for a caller that has split `url` already: `parts` must be
  // SplitUrl(url) (crawler/url_parts.h), so the URL is not scanned again.
  TrapKind Check(std::string_view url, const UrlParts& parts, std::string_view from_host);

  // The counts as text, one line per slot in use:
  //   "traps\t1\t<slots>\n" then "host\t<slot>\t<pages>\t<in-link bits, hex>\n"
  //   and "path\t<slot>\t<pages>\n", slots ascending.
  // Bound: 3 x 2^18 lines (~10 MB) when every slot is used; a crawl of a few
  // hosts writes a few lines.
  std::string Encode() const;
  // Puts back counts Encode wrote (adding to the current ones, which are
  // zero right after construction). Anything else, another slot count
  // included, is DataLoss naming `path`; the counts are then unchanged.
  absl::Status Decode(std::string_view text, const std::string& path);

 private:
  uint64_t HostBudget(size_t slot) const;

  const uint64_t host_budget_;
  const uint64_t query_variants_;
  const uint64_t repeated_segments_;
  uint32_t* host_pages_;    // [kSlots], calloc'd
  uint64_t* host_inlinks_;  // [kSlots], 64-bit linear-counting bitmaps
  uint32_t* query_pages_;   // [kSlots], per host + path
};

// True when `path` holds a run of 1-3 segments repeated `times` times in a
// row ("/a/b/a/b/a/b/x" for times 3).
bool HasRepeatedSegments(std::string_view path, uint64_t times);

}  // namespace crawler

#endif  // CRAWLER_APP_TRAP_GUARD_H_
