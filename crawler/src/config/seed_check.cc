#include "config/seed_check.h"

#include "crawler/url.h"

namespace crawler::config_internal {

// The same WHATWG parser the crawler uses for links, so a seed is accepted
// exactly when the frontier could enqueue it.
absl::Status CheckSeedUrl(std::string_view line) {
  absl::StatusOr<Url> url = Url::Parse(line);
  if (!url.ok()) return url.status();
  if (!url->IsHttp()) return absl::InvalidArgumentError("");
  if (url->host().empty()) return absl::InvalidArgumentError("empty host");
  return absl::OkStatus();
}

}  // namespace crawler::config_internal
