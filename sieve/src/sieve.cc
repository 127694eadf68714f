// The contract's factories: the in-memory Sieve is the default implementation.
#include "sieve/sieve.h"

#include "sieve/memory_sieve.h"

namespace sieve {

absl::StatusOr<std::unique_ptr<Sieve>> Sieve::Create(const SieveOptions& options) {
  return MemorySieve::Create(options);
}

absl::StatusOr<std::unique_ptr<Sieve>> Sieve::Open(const std::filesystem::path& dir,
                                                   const SieveOptions& runtime) {
  return MemorySieve::Open(dir, runtime);
}

}  // namespace sieve
