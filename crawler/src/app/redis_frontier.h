// The crawl's start with a shared frontier (`--frontier redis://HOST:PORT/NAME`):
// the Sieve is a RedisSieve (sieve/redis_sieve.h) shared by every crawl
// process given the same URL, sized by --expected and --fp-rate (which must
// then be the same in every process: a process with others is refused).
//
//   if (!options.frontier.empty()) return OpenRedisCrawlStart(options);
//
// Checkpoints are off with a shared frontier: its state lives in Redis (make
// Redis persistent to survive a Redis restart), and each process's own
// checkpoint could not be a consistent cut of the fleet's. --resume is
// refused with that explanation; a stopped process is simply started again
// with the same --frontier.
//
// Threading: called once, by the crawl's start.
#ifndef CRAWLER_APP_REDIS_FRONTIER_H_
#define CRAWLER_APP_REDIS_FRONTIER_H_

#include "absl/status/statusor.h"
#include "app/checkpointer.h"
#include "crawler/options.h"

namespace crawler {

absl::StatusOr<CrawlStart> OpenRedisCrawlStart(const CrawlOptions& options);

}  // namespace crawler

#endif  // CRAWLER_APP_REDIS_FRONTIER_H_
