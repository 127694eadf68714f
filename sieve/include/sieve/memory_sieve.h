// sieve/memory_sieve.h: the in-memory Sieve, one process's to-visit queue. The
// filter lives in RAM, the queue spills to disk past its budget, and Save/Open
// checkpoint it. Its contract, with every method's documentation, is
// sieve/sieve.h; Sieve::Create and Sieve::Open return this implementation.
//
//   absl::StatusOr<std::unique_ptr<sieve::MemorySieve>> sieve =
//       sieve::MemorySieve::Create({.expected_count = 1'000'000});
//   if (!sieve.ok()) return sieve.status();
//   (*sieve)->Push("https://example.com/");
//
// Threading: every method is safe to call concurrently (sieve/sieve.h says
// which locks each takes).
#ifndef SIEVE_MEMORY_SIEVE_H_
#define SIEVE_MEMORY_SIEVE_H_

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sieve/options.h"
#include "sieve/sieve.h"
#include "sieve/stats.h"

namespace sieve {

class MemorySieve final : public Sieve {
 public:
  // See Sieve::Create and Sieve::Open.
  static absl::StatusOr<std::unique_ptr<MemorySieve>> Create(const SieveOptions& options);
  static absl::StatusOr<std::unique_ptr<MemorySieve>> Open(const std::filesystem::path& dir,
                                                           const SieveOptions& runtime = {});
  ~MemorySieve() override;

  using Sieve::Push;
  using Sieve::PushBatch;
  using Sieve::PushLazy;
  bool Push(std::string_view url, std::string_view payload, int32_t priority) override;
  bool PushLazy(std::string_view url, absl::FunctionRef<std::optional<std::string>()> make_payload,
                int32_t priority) override;
  size_t PushBatch(absl::Span<const std::string_view> urls,
                   absl::Span<const std::string_view> payloads,
                   absl::Span<const int32_t> priorities, absl::Span<bool> accepted) override;
  bool AcceptsPriority(int32_t priority) const override;
  std::optional<SieveEntry> PopEntry() override;
  std::optional<SieveEntry> TryPopEntry() override;
  std::optional<SieveEntry> PopEntryFor(std::chrono::milliseconds timeout) override;
  bool MarkDone(std::string_view url) override;
  bool Defer(std::string_view url) override;
  void Close() override;
  bool IsFinished() const override;
  void AddProducer() override;
  void ProducerDone() override;
  SieveStats Stats() const override;
  absl::Status Health() const override;
  absl::Status Save(const std::filesystem::path& dir) const override;

  // Opaque to embedders: defined in src/sieve_state.h.
  struct State;

 private:
  explicit MemorySieve(std::unique_ptr<State> state);

  std::unique_ptr<State> state_;
};

}  // namespace sieve

#endif  // SIEVE_MEMORY_SIEVE_H_
