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

bool Sieve::PushLazy(std::string_view url,
                     absl::FunctionRef<std::optional<std::string>()> make_payload,
                     int32_t priority) {
  const std::optional<std::string> payload = make_payload();
  return payload.has_value() && Push(url, *payload, priority);
}

}  // namespace sieve
