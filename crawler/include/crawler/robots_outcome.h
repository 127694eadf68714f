// crawler/robots_outcome.h: what a robots.txt fetch result means (RFC 9309
// 2.3.1), for the fetcher that fetches robots.txt and for RobotsCache.
//
// Example:
//   switch (crawler::RobotsRedirectStep(status, hops_followed)) {
//     case crawler::RobotsRedirectAction::kFollow: ... fetch Location, ++hops ...
//     case crawler::RobotsRedirectAction::kStop:   cache.Record(authority, status, "");
//   }
//
// Threading: pure functions, safe from any thread.
#ifndef CRAWLER_ROBOTS_OUTCOME_H_
#define CRAWLER_ROBOTS_OUTCOME_H_

namespace crawler {

// RFC 9309 2.3.1.2: follow at least five consecutive redirects.
inline constexpr int kRobotsMaxRedirects = 5;

enum class RobotsFetchOutcome {
  kParse,        // 2xx: the body is the robots.txt
  kUnavailable,  // 3xx not followed, 4xx except 429: crawl everything (RFC 9309 2.3.1.3)
  kUnreachable,  // 5xx, 429, network error (status 0), anything else: disallow
                 // everything for now, retry later (RFC 9309 2.3.1.4)
};

// `http_status` is the final status, or 0 for a network error (DNS, connect,
// timeout, TLS). 429 counts as unreachable (our choice, as Google does): the
// server asked us to slow down, not to crawl freely.
RobotsFetchOutcome ClassifyRobotsFetch(int http_status);

enum class RobotsRedirectAction {
  kFollow,  // fetch the Location (any host); the rules apply to the original authority
  kStop,    // not a redirect, or the hop limit is reached: Record the status as is
            // (a 3xx then means "unavailable")
};

// What to do with a response of `http_status` after `hops_followed` redirects
// of this robots.txt fetch have been followed already.
RobotsRedirectAction RobotsRedirectStep(int http_status, int hops_followed);

}  // namespace crawler

#endif  // CRAWLER_ROBOTS_OUTCOME_H_
