// The `crawl` program's exit status for a crawl that ran to its end, from its
// summary (cli.h lists the codes): what a script needs to tell "done" from
// "nothing was fetched" and from "the filter lost URLs".
#ifndef CRAWLER_APP_EXIT_STATUS_H_
#define CRAWLER_APP_EXIT_STATUS_H_

#include <string>

#include "crawler/output.h"

namespace crawler {

struct ExitStatus {
  int code = 0;
  std::string reason;  // for stderr; empty for kExitOk
};

// kExitNothingFetched when no record got an HTTP response (status_counts has
// only 0), then kExitUrlsLost when the measured loss's lower 95% bound is over
// max(kLostUrlsThreshold, 2 fp_rate) of the new URLs, else kExitOk. With a
// shared frontier (`shared_frontier`, --frontier), a process that wrote no
// record at all was handed no URL (the fleet's other processes held the
// hosts): kExitOk, not kExitNothingFetched; one whose own fetches all failed
// still gets kExitNothingFetched.
ExitStatus CrawlExitStatus(const CrawlSummary& summary, double fp_rate,
                           bool shared_frontier = false);

}  // namespace crawler

#endif  // CRAWLER_APP_EXIT_STATUS_H_
