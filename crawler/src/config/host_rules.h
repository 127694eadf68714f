// [[hosts]] in crawl.toml: per-host overrides of fetch.per_host,
// fetch.delay, fetch.per_ip and fetch.ip_delay. Kept apart from the option table because it is an
// array of tables, not one value per key. Threading: pure functions.
#ifndef CRAWLER_SRC_CONFIG_HOST_RULES_H_
#define CRAWLER_SRC_CONFIG_HOST_RULES_H_

#include <toml++/toml.h>

#include <string>

#include "absl/status/status.h"
#include "crawler/options.h"

namespace crawler::config_internal {

// The TOML key holding the rules.
inline constexpr std::string_view kHostsKey = "hosts";

// Replaces options.hosts with the tables of `node` (an array of tables with
// keys pattern, per_host, delay, per_ip, ip_delay, headers, user,
// password, auth). Errors name the file, the key and the line:
// "crawl.toml: hosts[2].delay: ... (line 40)".
absl::Status ApplyHostRules(const std::string& path, const toml::node& node, CrawlOptions& options);

}  // namespace crawler::config_internal

#endif  // CRAWLER_SRC_CONFIG_HOST_RULES_H_
