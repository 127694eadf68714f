#include "testsite/web_options.h"

#include "absl/strings/str_cat.h"

namespace testsite {
namespace {

absl::Status InvalidWebOption(const char* field, const char* why) {
  return absl::InvalidArgumentError(absl::StrCat("WebOptions.", field, ": ", why));
}

}  // namespace

absl::Status ValidateWebOptions(const WebOptions& options) {
  if (options.hosts < 2 || options.hosts > kMaxWebHosts) {
    return InvalidWebOption("hosts", "must be in [2, 16711679] (127.1.0.0 to 127.255.255.254)");
  }
  // Page numbers times the fan-out stay far below 2^64.
  if (options.largest_host_pages < 1 || options.largest_host_pages > (uint64_t{1} << 40)) {
    return InvalidWebOption("largest_host_pages", "must be in [1, 2^40]");
  }
  if (options.min_host_pages < 1 || options.min_host_pages > options.largest_host_pages) {
    return InvalidWebOption("min_host_pages", "must be in [1, largest_host_pages]");
  }
  if (!(options.zipf_exponent >= 0 && options.zipf_exponent <= 4)) {
    return InvalidWebOption("zipf_exponent", "must be in [0, 4]");
  }
  if (options.links_per_page < 1 || options.links_per_page > 10000) {
    return InvalidWebOption("links_per_page", "must be in [1, 10000]");
  }
  if (!(options.on_host_share >= 0 && options.on_host_share <= 1)) {
    return InvalidWebOption("on_host_share", "must be in [0, 1]");
  }
  if (options.port < 0 || options.port > 65535)
    return InvalidWebOption("port", "must be in [0, 65535]");
  if (options.threads < 1 || options.threads > 4096) {
    return InvalidWebOption("threads", "must be in [1, 4096]");
  }
  if (options.page_bytes < 0 || options.page_bytes > (1 << 20)) {
    return InvalidWebOption("page_bytes", "must be in [0, 1 MiB]");
  }
  if (options.robots_every < 1) return InvalidWebOption("robots_every", "must be at least 1");
  if (options.keep_alive_timeout_s < 0) {
    return InvalidWebOption("keep_alive_timeout_s", "must not be negative");
  }
  return absl::OkStatus();
}

}  // namespace testsite
