// [[priority]] in crawl.toml: per-URL and per-host priority deltas (see
// PriorityRule in crawler/options.h). Kept apart from the option table
// because it is an array of tables, not one value per key.
// Threading: pure functions.
#ifndef CRAWLER_SRC_CONFIG_PRIORITY_RULES_H_
#define CRAWLER_SRC_CONFIG_PRIORITY_RULES_H_

#include <toml++/toml.h>

#include <string>

#include "absl/status/status.h"
#include "crawler/options.h"

namespace crawler::config_internal {

// The TOML key holding the rules.
inline constexpr std::string_view kPriorityKey = "priority";

// Replaces options.priorities with the tables of `node` (an array of tables
// with keys url, host and delta). Errors name the file, the table, the key
// and the line: "crawl.toml: priority[1].delta: expected an integer (line 12)".
absl::Status ApplyPriorityRules(const std::string& path, const toml::node& node,
                                CrawlOptions& options);

}  // namespace crawler::config_internal

#endif  // CRAWLER_SRC_CONFIG_PRIORITY_RULES_H_
