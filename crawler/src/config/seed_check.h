// Whether one seed line is a URL the crawler can start from.
// Threading: pure function, safe from any thread.
#ifndef CRAWLER_SRC_CONFIG_SEED_CHECK_H_
#define CRAWLER_SRC_CONFIG_SEED_CHECK_H_

#include <string_view>

#include "absl/status/status.h"

namespace crawler::config_internal {

// OK for an absolute http(s) URL with a host; otherwise an error whose message
// is the reason (e.g. "invalid host"), possibly empty.
absl::Status CheckSeedUrl(std::string_view line);

}  // namespace crawler::config_internal

#endif  // CRAWLER_SRC_CONFIG_SEED_CHECK_H_
