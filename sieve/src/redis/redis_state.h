// RedisSieve's client-side state: the connection, the URLs this client holds
// and its counters. Everything under `mutex`; every Redis round trip is made
// with it held (one connection, one conversation at a time).
#ifndef SIEVE_SRC_REDIS_REDIS_STATE_H_
#define SIEVE_SRC_REDIS_REDIS_STATE_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "connection.h"
#include "filter_layout.h"
#include "sieve/redis_sieve.h"

namespace sieve {

// The key names of one frontier.
struct RedisKeys {
  explicit RedisKeys(const std::string& name);
  std::string ShardKey(uint64_t shard) const;

  std::string prefix;
  std::string meta;
  std::string queue;
  std::string leases;
  std::string owners;
};

struct RedisSieve::State {
  State(const RedisSieveOptions& options_in, internal::FilterLayout layout_in);

  const RedisSieveOptions options;
  const internal::FilterLayout layout;
  const RedisKeys keys;
  const std::string owner;  // this client's id in NAME:owners
  std::string push_sha;
  std::string pop_sha;
  std::string release_sha;

  std::mutex mutex;
  std::condition_variable closed_changed;  // wakes Pop's polling sleep on Close
  std::unique_ptr<internal::RedisConnection> connection ABSL_GUARDED_BY(mutex);
  absl::Status failure ABSL_GUARDED_BY(mutex);
  bool closed ABSL_GUARDED_BY(mutex) = false;
  // Leased from Redis by a pop round trip, not yet returned by Pop.
  std::deque<std::string> leased ABSL_GUARDED_BY(mutex);
  // Returned by Pop, not yet done or deferred.
  std::unordered_set<std::string> in_flight ABSL_GUARDED_BY(mutex);
  // MarkDone'd, not yet acked to Redis; and when the oldest of them came.
  std::vector<std::string> acks ABSL_GUARDED_BY(mutex);
  std::chrono::steady_clock::time_point oldest_ack ABSL_GUARDED_BY(mutex);

  // This client's counters.
  uint64_t accepted ABSL_GUARDED_BY(mutex) = 0;
  uint64_t dropped ABSL_GUARDED_BY(mutex) = 0;
  uint64_t popped ABSL_GUARDED_BY(mutex) = 0;
  uint64_t done ABSL_GUARDED_BY(mutex) = 0;
  uint64_t deferred ABSL_GUARDED_BY(mutex) = 0;

  // Fleet-wide figures: queue and lease counts from the last round trip that
  // returned them, the filter's bit count from the last refresh.
  uint64_t queued ABSL_GUARDED_BY(mutex) = 0;
  uint64_t leases ABSL_GUARDED_BY(mutex) = 0;
  uint64_t bits_set ABSL_GUARDED_BY(mutex) = 0;
  std::chrono::steady_clock::time_point refreshed ABSL_GUARDED_BY(mutex);
  bool ever_refreshed ABSL_GUARDED_BY(mutex) = false;
  uint64_t overflow_warnings ABSL_GUARDED_BY(mutex) = 0;
};

}  // namespace sieve

#endif  // SIEVE_SRC_REDIS_REDIS_STATE_H_
