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
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "connection.h"
#include "filter_layout.h"
#include "sieve/redis_sieve.h"

namespace sieve {

// The key names of one frontier; on a cluster with hash tags (redis_sieve.h,
// "Redis Cluster"): "{NAME}:..." for all but the filter, "{NAME:bits:I}".
struct RedisKeys {
  RedisKeys(const std::string& name, bool cluster);
  std::string ShardKey(uint64_t shard) const;
  // A key of shard's slot holding this client's last filter step there
  // (cluster push, lua/filter.lua).
  std::string ShardTripKey(uint64_t shard, const std::string& owner) const;

  std::string name;
  bool cluster;
  std::string prefix;  // "NAME:" or "{NAME}:", ARGV[1] of every script
  std::string meta;
  std::string pages;  // the fleet's page budget taken (TakePage)
};

struct RedisSieve::State {
  State(const RedisSieveOptions& options_in, internal::FilterLayout layout_in);

  const RedisSieveOptions options;
  const internal::FilterLayout layout;
  // NAME:meta says the host queues' batches are packed (set at Connect).
  bool packed_batches = false;
  const RedisKeys keys;
  const std::string owner;  // this client's id in NAME:owners
  // The queue's partitions (queue_partitions.h), fixed at Connect from
  // NAME:meta: 1 but on a cluster frontier created with several. Per
  // partition, its key prefix and its copy of NAME:meta (the scripts'
  // KEYS[1]: routes the call to the partition's slot).
  uint32_t partitions = 1;
  std::vector<std::string> part_prefix;
  std::vector<std::string> part_meta;
  std::string push_sha;
  std::string pop_sha;
  std::string release_sha;
  std::string renew_sha;
  std::string take_page_sha;
  // SERVER TAKE / GIVE (server_slots.cc), registered at their first use;
  // under mutex.
  std::string server_take_sha;
  std::string server_give_sha;
  uint64_t server_tokens = 0;  // slots taken by this client: names each token
  // A cluster's push steps (lua/journal.lua, filter.lua, enqueue.lua) and the
  // number of this client's push trips, which names each trip so a resend
  // is known.
  std::string journal_sha;
  std::string filter_sha;
  std::string enqueue_sha;
  std::string enqueue_part_sha;  // ENQUEUE_PART: several queue partitions
  uint64_t push_trips = 0;       // under mutex

  std::mutex mutex;
  // Wakes Pop's polling sleep on Close, and the heartbeat when stopping.
  std::condition_variable closed_changed;
  // With host_key: renews the host leases when no round trip did
  // (heartbeat.h). Joined by ~RedisSieve after setting `stopping`.
  std::thread heartbeat;
  bool stopping ABSL_GUARDED_BY(mutex) = false;
  std::chrono::steady_clock::time_point last_round_trip ABSL_GUARDED_BY(mutex);
  // When the heartbeat last renewed this client's URL leases.
  std::chrono::steady_clock::time_point last_url_renewal ABSL_GUARDED_BY(mutex);
  std::unique_ptr<internal::RedisLink> connection ABSL_GUARDED_BY(mutex);
  // Pushes go through CRAWLSIEVE.PUSH (the server had the crawlsieve module
  // at Connect and options.use_push_module), else through the push script;
  // cleared if the server answers that the command is unknown. On a
  // cluster: the filter step goes through CRAWLSIEVE.FILTER, set again from
  // every primary's answer when the link's ServersEpoch moved past
  // module_epoch (a re-read slot map), cleared on "unknown command".
  bool push_module ABSL_GUARDED_BY(mutex) = false;
  uint64_t module_epoch ABSL_GUARDED_BY(mutex) = 0;
  absl::Status failure ABSL_GUARDED_BY(mutex);
  bool closed ABSL_GUARDED_BY(mutex) = false;
  uint64_t producers ABSL_GUARDED_BY(mutex) = 0;  // this client's open producers
  // Prefetched: leased from Redis by a pop round trip (a batch at a time),
  // not yet returned by Pop, highest priority first: the queue element as
  // stored (queue_element.h: URL and payload), the host as the pop script
  // named it ("" without host_key) and the priority of the lane it came from.
  struct Prefetched {
    std::string element;
    std::string host;
    int32_t priority = 0;
  };
  std::deque<Prefetched> prefetched ABSL_GUARDED_BY(mutex);
  // Returned by Pop, not yet done or deferred, by URL: its host and its
  // queue element (acks and give-backs name the element, as its lease does).
  struct InFlight {
    std::string host;
    std::string element;
  };
  std::unordered_map<std::string, InFlight> in_flight ABSL_GUARDED_BY(mutex);
  // Per host, this client's URLs of it in `prefetched` and `in_flight`; a host
  // whose count drops to 0 goes to idle_hosts, sent with the next pop (the
  // script gives it back if its queue is empty too).
  std::unordered_map<std::string, size_t> host_urls ABSL_GUARDED_BY(mutex);
  std::vector<std::string> idle_hosts ABSL_GUARDED_BY(mutex);
  // Queue elements MarkDone'd, not yet acked to Redis (with their hosts'
  // partition); and when the oldest of them came.
  struct Ack {
    std::string element;
    uint32_t part = 0;
  };
  std::vector<Ack> acks ABSL_GUARDED_BY(mutex);
  std::chrono::steady_clock::time_point oldest_ack ABSL_GUARDED_BY(mutex);

  // This client's counters.
  uint64_t accepted ABSL_GUARDED_BY(mutex) = 0;
  uint64_t dropped ABSL_GUARDED_BY(mutex) = 0;
  uint64_t popped ABSL_GUARDED_BY(mutex) = 0;
  uint64_t done ABSL_GUARDED_BY(mutex) = 0;
  uint64_t deferred ABSL_GUARDED_BY(mutex) = 0;
  uint64_t refused ABSL_GUARDED_BY(mutex) = 0;  // NUL in the URL, payload too long, priority
  bool warned_priority ABSL_GUARDED_BY(mutex) = false;  // a non-zero priority was refused

  // Fleet-wide figures: queue and lease counts from the last round trip that
  // returned them, the filter's bit count from the last refresh.
  uint64_t queued ABSL_GUARDED_BY(mutex) = 0;
  uint64_t fleet_leases ABSL_GUARDED_BY(mutex) = 0;  // URLs leased to any client
  uint64_t journals ABSL_GUARDED_BY(mutex) = 0;      // a cluster's pending push trips
  // Per queue partition, from its last pop reply: queued URLs, URL leases,
  // hosts with a holder or URLs, hosts this client holds there (`queued`
  // and `fleet_leases` above are their sums; the host counts go into each pop's
  // fair share). A pop wanting URLs starts at partition pop_cursor, which
  // moves on by one each time. `moves`: NAME:moves, the count of finished
  // push trips, as partition 0 last said (IsFinished's scan).
  // `best_lane`: the best priority this client could pop there, from the
  // partition's last reply and raised by this client's own pushes since
  // (kLaneUnknown before any reply, kLaneNone if nothing).
  static constexpr int64_t kLaneUnknown = INT64_MAX;
  static constexpr int64_t kLaneNone = INT64_MIN;
  struct PartitionFigures {
    uint64_t queued = 0;
    uint64_t leases = 0;
    uint64_t hosts = 0;
    uint64_t held = 0;
    int64_t best_lane = kLaneUnknown;
  };
  std::vector<PartitionFigures> part_figures ABSL_GUARDED_BY(mutex);
  uint64_t pop_cursor ABSL_GUARDED_BY(mutex) = 0;
  // This client met a priority other than 0 (pushed one, or a reply's best
  // lane): from then on a pop asks the partitions best lane first
  // (round_trips.cc), before that in turn, as a frontier without lanes.
  bool lanes_seen ABSL_GUARDED_BY(mutex) = false;
  uint64_t moves ABSL_GUARDED_BY(mutex) = 0;
  uint64_t bits_set ABSL_GUARDED_BY(mutex) = 0;
  std::chrono::steady_clock::time_point refreshed ABSL_GUARDED_BY(mutex);
  bool ever_refreshed ABSL_GUARDED_BY(mutex) = false;
  uint64_t overflow_warnings ABSL_GUARDED_BY(mutex) = 0;
};

}  // namespace sieve

#endif  // SIEVE_SRC_REDIS_REDIS_STATE_H_
