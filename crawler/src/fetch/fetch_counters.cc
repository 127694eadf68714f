#include "fetch/fetch_counters.h"

namespace crawler::fetch_internal {

FetchStats FetchCounters::Snapshot() const {
  constexpr auto kRelaxed = std::memory_order_relaxed;
  FetchStats stats;
  stats.submitted = submitted.load(kRelaxed);
  stats.completed = completed.load(kRelaxed);
  stats.failed = failed.load(kRelaxed);
  stats.body_bytes = body_bytes.load(kRelaxed);
  stats.wire_bytes = wire_bytes.load(kRelaxed);
  stats.connections_opened = connections_opened.load(kRelaxed);
  stats.in_flight = in_flight.load(kRelaxed);
  stats.queued = queued.load(kRelaxed);
  return stats;
}

void FetchCounters::RecordCompleted(bool failed_fetch, uint64_t body, uint64_t wire) {
  constexpr auto kRelaxed = std::memory_order_relaxed;
  completed.fetch_add(1, kRelaxed);
  if (failed_fetch) failed.fetch_add(1, kRelaxed);
  body_bytes.fetch_add(body, kRelaxed);
  wire_bytes.fetch_add(wire, kRelaxed);
  // Last, with release: whoever sees InFlight() drop has seen the rest.
  in_flight.fetch_sub(1, std::memory_order_release);
}

}  // namespace crawler::fetch_internal
