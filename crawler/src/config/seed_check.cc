#include "config/seed_check.h"

#include "absl/strings/match.h"
#include "config/strings.h"

namespace crawler::config_internal {

absl::Status CheckSeedUrl(std::string_view line) {
  std::string_view rest = line;
  if (absl::StartsWithIgnoreCase(Absl(rest), "https://")) {
    rest.remove_prefix(8);
  } else if (absl::StartsWithIgnoreCase(Absl(rest), "http://")) {
    rest.remove_prefix(7);
  } else {
    return absl::InvalidArgumentError("");
  }
  size_t host_end = rest.find_first_of("/?#");
  if (rest.substr(0, host_end).empty()) return absl::InvalidArgumentError("empty host");
  for (char c : line) {
    if (static_cast<unsigned char>(c) <= ' ') return absl::InvalidArgumentError("contains a space");
  }
  return absl::OkStatus();
}

}  // namespace crawler::config_internal
