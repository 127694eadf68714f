// ValidateCrawlOptions: every field against its row's bounds (for options
// built in code, not parsed), then the checks that involve two fields.
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "config/option_table.h"
#include "config/strings.h"
#include "crawler/counts.h"
#include "crawler/metrics_server.h"
#include "crawler/options.h"

namespace crawler {

using config_internal::Append;
using config_internal::Cat;
namespace {

using config_internal::OptionSpec;
using config_internal::OptionValue;

constexpr double kMinFpRate = 1e-9;

absl::Status CheckRow(const OptionSpec& spec, const CrawlOptions& options) {
  OptionValue value = spec.get(options);
  absl::Status status = absl::OkStatus();
  if (const auto* patterns = std::get_if<std::vector<std::string>>(&value)) {
    for (const std::string& pattern : *patterns) {
      status = config_internal::ParseOptionText(spec, pattern).status();
      if (!status.ok()) break;
    }
  } else {
    status = config_internal::CheckOptionValue(spec, value,
                                               config_internal::FormatOptionValue(spec, value));
  }
  if (status.ok()) return status;
  return absl::InvalidArgumentError(Cat("--", spec.flag, ": ", status.message()));
}

bool HasProxyScheme(std::string_view proxy) {
  for (std::string_view scheme :
       {"http://", "https://", "socks4://", "socks4a://", "socks5://", "socks5h://"}) {
    if (absl::StartsWithIgnoreCase(config_internal::Absl(proxy), config_internal::Absl(scheme)))
      return true;
  }
  return false;
}

absl::Status CheckCombinations(const CrawlOptions& options) {
  if (options.resume && options.fresh) {
    return absl::InvalidArgumentError(
        "--resume and --fresh contradict each other (continue the checkpoint, or discard it)");
  }
  if (options.revisit_min_s > options.revisit_max_s) {
    return absl::InvalidArgumentError(Cat("--revisit-min (", options.revisit_min_s,
                                          "s) is above --revisit-max (", options.revisit_max_s,
                                          "s)"));
  }
  if (!options.recrawl.empty() && options.recrawl == options.out_dir) {
    return absl::InvalidArgumentError(
        Cat("--recrawl ", options.recrawl, " is --out too: a recrawl writes a new directory"));
  }
  if (options.seeds_file.empty() && options.seed_urls.empty() && options.sitemap_urls.empty() &&
      !options.resume && options.recrawl.empty()) {
    return absl::InvalidArgumentError(
        "--seeds: missing (a file of start URLs, '-' for stdin, [seeds] file in the config, "
        "URLs as arguments, or --sitemap URL)");
  }
  if (options.out_dir == "-") {
    return absl::InvalidArgumentError(
        "--out: '-' is not a directory; the crawl writes several files (pages.jsonl, "
        "summary.json, state/), so give a directory and read DIR/pages.jsonl");
  }
  // Below this no filter of ours reaches the rate (the blocked filter's hash
  // count is capped), and the Bloom library's own message then speaks of a
  // size that is not the problem.
  if (options.fp_rate < kMinFpRate) {
    return absl::InvalidArgumentError(Cat("--fp-rate: ", options.fp_rate, " is below ", kMinFpRate,
                                          ", the smallest rate the seen-set filter is sized for"));
  }
  if (!options.proxy.empty() && !HasProxyScheme(options.proxy)) {
    return absl::InvalidArgumentError(
        Cat("--proxy: '", options.proxy,
            "' must start with http://, https://, socks4://, socks4a://, socks5:// or socks5h://"));
  }
  if (!options.metrics.empty()) {
    absl::Status address = ParseMetricsAddress(options.metrics).status();
    if (!address.ok()) return absl::InvalidArgumentError(Cat("--metrics: ", address.message()));
  }
  for (const HostRule& rule : options.hosts) {
    if (!rule.user.empty() && rule.auth != "basic" && rule.auth != "digest" && rule.auth != "any") {
      return absl::InvalidArgumentError(Cat("hosts rule '", rule.pattern, "': auth '", rule.auth,
                                            "' is not one of basic|digest|any"));
    }
  }
  if (options.ip_delay != "auto") {
    absl::StatusOr<double> seconds = ParseDuration(options.ip_delay);
    if (!seconds.ok() || *seconds < 0) {
      return absl::InvalidArgumentError(
          Cat("--ip-delay '", options.ip_delay, "': expected a duration (250ms, 1s, 0) or auto"));
    }
  }
  if (options.connections < options.per_host) {
    return absl::InvalidArgumentError(Cat("--per-host: ", options.per_host,
                                          " is more than --connections (", options.connections,
                                          ", the total)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateCrawlOptions(const CrawlOptions& options) {
  for (const OptionSpec& spec : config_internal::OptionTable()) {
    absl::Status row = CheckRow(spec, options);
    if (!row.ok()) return row;
  }
  return CheckCombinations(options);
}

}  // namespace crawler
