// The counters behind Fetcher::Stats and InFlight, written by the fetcher
// threads and read from anywhere. Relaxed atomics: each is exact on its own,
// a snapshot of several is not one instant (Stats says so).
#ifndef CRAWLER_SRC_FETCH_FETCH_COUNTERS_H_
#define CRAWLER_SRC_FETCH_FETCH_COUNTERS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "crawler/fetch.h"

namespace crawler::fetch_internal {

struct FetchCounters {
  std::atomic<uint64_t> submitted{0};
  std::atomic<uint64_t> completed{0};
  std::atomic<uint64_t> failed{0};
  std::atomic<uint64_t> body_bytes{0};
  std::atomic<uint64_t> wire_bytes{0};
  std::atomic<uint64_t> connections_opened{0};
  std::atomic<uint64_t> connections_closed{0};  // for Transfer, not in FetchStats
  std::atomic<size_t> in_flight{0};
  std::atomic<size_t> queued{0};

  FetchStats Snapshot() const;
  // After a callback returned, with what its result carried (the callback
  // may have moved the result away).
  void RecordCompleted(bool failed_fetch, uint64_t body, uint64_t wire);
};

}  // namespace crawler::fetch_internal

#endif  // CRAWLER_SRC_FETCH_FETCH_COUNTERS_H_
