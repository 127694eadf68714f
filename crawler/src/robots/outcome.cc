// Fetch outcomes of robots.txt (RFC 9309 2.3.1).
#include "crawler/robots_outcome.h"

namespace crawler {

RobotsFetchOutcome ClassifyRobotsFetch(int http_status) {
  if (http_status >= 200 && http_status < 300) return RobotsFetchOutcome::kParse;
  if (http_status == 429) return RobotsFetchOutcome::kUnreachable;
  if (http_status >= 300 && http_status < 500) return RobotsFetchOutcome::kUnavailable;
  return RobotsFetchOutcome::kUnreachable;
}

RobotsRedirectAction RobotsRedirectStep(int http_status, int hops_followed) {
  const bool redirect = http_status == 301 || http_status == 302 || http_status == 303 ||
                        http_status == 307 || http_status == 308;
  return redirect && hops_followed < kRobotsMaxRedirects ? RobotsRedirectAction::kFollow
                                                         : RobotsRedirectAction::kStop;
}

}  // namespace crawler
