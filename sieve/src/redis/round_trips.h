// RedisSieve's round trips, each a function of the state with its mutex held:
// the script calls with their argument layout (lua/*.lua) and the failure
// rule (the first error is kept, logged once, and makes the client fail).
#ifndef SIEVE_SRC_REDIS_ROUND_TRIPS_H_
#define SIEVE_SRC_REDIS_ROUND_TRIPS_H_

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "redis_state.h"

struct redisReply;

namespace sieve::internal {

using State = RedisSieve::State;

// True while the client is neither closed nor failed.
bool Usable(const State& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex);
// Records the first failure (sticky) and logs it.
void Fail(State& s, const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex);

// Pushes `urls` in batches of push_batch_size, pipelined, through the
// crawlsieve module's CRAWLSIEVE.PUSH if s.push_module, else the push script
// (and through the script from then on if the server says the module's
// command is unknown; a batch with a URL of a lane other than 0 always
// through the script); writes each result into `is_new`. The filter's probes
// come from each URL, the queue gets its element (queue_element.h: the URL
// with its payload) in its host lane (`queues`, lane_queue.h; both parallel
// to `urls`). False (and failed) on error.
bool PushUrls(State& s, absl::Span<const std::string_view> urls,
              absl::Span<const std::string> elements, absl::Span<const std::string> queues,
              absl::Span<bool> is_new) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex);

// PushUrls on a Redis Cluster (cluster_push.cc): per trip of
// push_batch_size x 8 URLs, the filter step on each shard, then the enqueue
// of the new URLs (redis_sieve.h, "Redis Cluster"). False (and failed) on
// error.
bool ClusterPushUrls(State& s, absl::Span<const std::string_view> urls,
                     absl::Span<const std::string> elements, absl::Span<const std::string> queues,
                     absl::Span<bool> is_new) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex);

// How long a filter shard keeps a client's last trip record
// (lua/filter.lua): a resend, or a survivor's replay of a dead client's journal,
// within this time gets the trip's first answer.
inline constexpr std::chrono::milliseconds kTripRecordLife = std::chrono::hours(1);

// A cluster push's filter step for `urls`, as client `owner`'s trip `trip`
// (the caller's own: mode "run"; a dead client's journal: "replay" or
// "all", lua/filter.lua), one call per shard: CRAWLSIEVE.FILTER if
// s.push_module (asked again of every primary after a re-read of the slot
// map; dropped, and the step resent through the script, if a primary does
// not know it), else the FILTER script. One character per URL, '1' new; "" if a
// replay finds that its client finished the trip itself; nullopt (and
// failed) on error.
std::optional<std::string> ClusterFilterStep(State& s, const std::string& owner,
                                             const std::string& trip, std::string_view mode,
                                             absl::Span<const std::string_view> urls)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex);
// A cluster push's enqueue step: the journaled URLs of `owner`'s record
// whose flag is '1', if the record is still trip `trip`'s; the record goes.
// On a frontier of several queue partitions, the new URLs of partitions
// other than 0 (by `hosts`, parallel to the journal's `elements`) go first
// to their partitions (ENQUEUE_PART, remembered there under the trip), each
// waited for by its replica, then partition 0's with the record's end.
// False (and failed) on error.
bool ClusterEnqueueStep(State& s, const std::string& owner, const std::string& trip,
                        const std::string& flags, absl::Span<const std::string_view> elements,
                        absl::Span<const std::string_view> hosts)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex);
// Finishes a dead client's push trip from the journal record the pop
// script claimed (cluster_replay.cc): the filter step again under the dead
// client's trip id (its shards' records answer as they answered it), then
// the enqueue. On error this client fails; the claim then expires and
// another client takes the record.
void ReplayClaimedJournal(State& s, const redisReply* claimed)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex);

// Sends the pending acks and idle hosts, and leases up to `want` more URLs
// into s.prefetched (counted in s.host_urls); refreshes s.queued and s.fleet_leases.
// With several queue partitions: asks partition s.pop_cursor first (and
// moves the cursor on; without host_key partition 0, the shared queue's),
// the next ones in turn while short of `want`; acks
// and idle hosts go to their own partitions in the same round trip.
// False (and failed) on error.
bool AckAndLease(State& s, size_t want) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex);
// A pop of no URL on every partition: acks sent, host leases renewed
// everywhere, figures refreshed (the heartbeat's round trip). False (and
// failed) on error.
bool SweepPartitions(State& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex);
// True if the fleet has no queued URL, no URL lease and no pending push
// journal, read in an order that cannot miss a URL moving between
// partitions (round_trips.cc); nullopt (and failed) on error.
std::optional<bool> FleetIsFinished(State& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex);

// A URL of `host` left this client (done or deferred): when it was the
// host's last, the host is reported idle with the next pop.
void UrlLeftClient(State& s, const std::string& host) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex);

// A leased queue element and its host (which names its queue partition).
struct ElementOfHost {
  std::string element;
  std::string host;
};
// Runs the release script: leased queue elements back to their hosts'
// queues, at the 'head' or the 'tail'; with all_hosts, every host this client
// holds is given back too (in every partition). Returns how many were
// released, nullopt (and failed) on error.
std::optional<long long> Release(State& s, std::string_view where,
                                 const std::vector<ElementOfHost>& elements, bool all_hosts)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex);

// Extends the leases of the URLs this client holds (in s.prefetched and
// s.in_flight) to lease_time from now. False (and failed) on error.
bool RenewUrlLeases(State& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex);

// Reads the filter's bit count over every shard, and the queue and lease
// counts, if the last read is older than stats_cache; warns past capacity.
void RefreshFleetFigures(State& s, bool force) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex);

}  // namespace sieve::internal

#endif  // SIEVE_SRC_REDIS_ROUND_TRIPS_H_
