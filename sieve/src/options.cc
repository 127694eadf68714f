#include "sieve/options.h"

#include <string_view>

#include "absl/strings/str_cat.h"

namespace sieve {

const char* OverflowPolicyName(OverflowPolicy policy) {
  return policy == OverflowPolicy::kGrow ? "grow" : "warn";
}

absl::StatusOr<OverflowPolicy> ParseOverflowPolicy(std::string_view name) {
  if (name == "warn") return OverflowPolicy::kWarn;
  if (name == "grow") return OverflowPolicy::kGrow;
  return absl::InvalidArgumentError(
      absl::StrCat("overflow policy must be \"warn\" or \"grow\", not \"",
                   absl::string_view(name.data(), name.size()), "\""));
}

}  // namespace sieve
