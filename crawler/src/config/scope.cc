// Scope names as written in flags and crawl.toml.
#include "absl/status/status.h"
#include "config/strings.h"
#include "crawler/options.h"

namespace crawler {

using config_internal::Append;
using config_internal::Cat;

std::string_view ScopeName(Scope scope) {
  switch (scope) {
    case Scope::kHost:
      return "host";
    case Scope::kDomain:
      return "domain";
    case Scope::kAny:
      return "any";
  }
  return "host";  // unreachable: every enumerator is handled above
}

absl::StatusOr<Scope> ParseScope(std::string_view text) {
  for (Scope scope : {Scope::kHost, Scope::kDomain, Scope::kAny}) {
    if (text == ScopeName(scope)) return scope;
  }
  return absl::InvalidArgumentError(Cat("'", text, "' is not a scope (host, domain or any)"));
}

}  // namespace crawler
