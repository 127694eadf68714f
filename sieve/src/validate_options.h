// Checks SieveOptions field by field (InvalidArgument naming the field) and
// resolves the spill directory: empty means the system temporary directory; a
// missing one is created.
//
//   absl::StatusOr<SieveOptions> resolved = ValidateOptions(options);
//
// Threading: no shared state.
#ifndef SIEVE_SRC_VALIDATE_OPTIONS_H_
#define SIEVE_SRC_VALIDATE_OPTIONS_H_

#include "absl/status/statusor.h"
#include "sieve/options.h"

namespace sieve::internal {

inline constexpr size_t kMinQueueMemoryBudget = size_t{64} << 10;

absl::StatusOr<SieveOptions> ValidateOptions(const SieveOptions& options);

}  // namespace sieve::internal

#endif  // SIEVE_SRC_VALIDATE_OPTIONS_H_
