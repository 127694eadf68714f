#include "testsite/site_options.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace testsite {
namespace {

absl::Status Invalid(const char* field, const char* why) {
  return absl::InvalidArgumentError(absl::StrCat("SiteOptions.", field, ": ", why));
}

}  // namespace

absl::Status ValidateSiteOptions(const SiteOptions& options) {
  if (options.pages < 1) return Invalid("pages", "must be at least 1 (the root)");
  // Page numbers are printed in URLs; 2^48 pages is beyond any test machine.
  if (options.pages > (uint64_t{1} << 48)) return Invalid("pages", "must be at most 2^48");
  if (options.links_per_page < 1) return Invalid("links_per_page", "must be at least 1");
  if (options.links_per_page > 10000) return Invalid("links_per_page", "must be at most 10000");
  if (options.latency_ms < 0) return Invalid("latency_ms", "must not be negative");
  if (options.port < 0 || options.port > 65535) return Invalid("port", "must be in [0, 65535]");
  if (options.host.empty()) return Invalid("host", "must not be empty");
  if (options.threads < 1 || options.threads > 4096) {
    return Invalid("threads", "must be in [1, 4096]");
  }
  if (options.page_bytes < 0) return Invalid("page_bytes", "must not be negative");
  if (options.keep_alive_timeout_s < 0) {
    return Invalid("keep_alive_timeout_s", "must not be negative");
  }
  if (options.slow_ms < 0) return Invalid("slow_ms", "must not be negative");
  if (options.slow_every < 1) return Invalid("slow_every", "must be at least 1");
  if (options.drip_interval_ms < 1) return Invalid("drip_interval_ms", "must be at least 1");
  if (options.flaky_failures < 0) return Invalid("flaky_failures", "must not be negative");
  if (options.redirect_chain < 1 || options.redirect_chain > 1000) {
    return Invalid("redirect_chain", "must be in [1, 1000]");
  }
  if (!(options.fault_rate >= 0 && options.fault_rate <= 1)) {
    return Invalid("fault_rate", "must be in [0, 1]");
  }
  if (options.fault_stall_ms < 0) return Invalid("fault_stall_ms", "must not be negative");
  if (options.fault_retry_after_s < 0) {
    return Invalid("fault_retry_after_s", "must not be negative");
  }
  if (!(options.rate_limit >= 0)) return Invalid("rate_limit", "must not be negative");
  if (options.rate_burst < 1) return Invalid("rate_burst", "must be at least 1");
  if (!(options.load_capacity >= 0)) return Invalid("load_capacity", "must not be negative");
  if (options.epoch < 0 || options.epoch > 1000) return Invalid("epoch", "must be in [0, 1000]");
  for (const auto& [field, value] : {std::pair{"changed_fraction", options.changed_fraction},
                                     std::pair{"removed_fraction", options.removed_fraction},
                                     std::pair{"added_fraction", options.added_fraction}}) {
    if (!(value >= 0 && value <= 1)) return Invalid(field, "must be in [0, 1]");
  }
  if (options.changed_fraction + options.removed_fraction > 1) {
    return Invalid("changed_fraction", "plus removed_fraction must be at most 1");
  }
  if (options.nesting_depth < 1) return Invalid("nesting_depth", "must be at least 1");
  return absl::OkStatus();
}

}  // namespace testsite
