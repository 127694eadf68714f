// A Redis Cluster behind the RedisLink interface (connection.h), so that
// RedisSieve talks to a cluster as to one server. hiredis has no cluster
// support; this is the small part of the cluster spec a client must follow:
//  - each command goes to the primary serving its key's slot (key_slot.h),
//    from the slot map read with CLUSTER SLOTS from any reachable node (the
//    seeds first time, then any known node); commands without a key
//    (PING, SCRIPT, INFO) go to any node;
//  - one RedisConnection per primary, each opened with one attempt per
//    call: the retries and back-off are done here, with the map re-read in
//    between, so a primary that died and whose replica took over is left
//    for the new one;
//  - "MOVED slot host:port": the slot map is re-read and the command resent
//    there; "ASK slot host:port" (a slot being migrated): the command is
//    resent there once, preceded by ASKING; TRYAGAIN, CLUSTERDOWN,
//    MASTERDOWN and LOADING count as failed attempts (back-off, re-read).
// Bounds: retry.max_attempts failed attempts (network or the errors above),
// and 16 redirections per Run beyond them; then Unavailable.
//
// A command's key is its first argument (cmd[1]), or for EVAL/EVALSHA the
// first of KEYS when there is one: RedisSieve's scripts name a key of the
// slot they work in as KEYS[1]; every other key they touch shares its hash
// tag (the server refuses a script that strays from its slot).
//
// Scripts (Register) are loaded on every primary, at once on those known
// and when a new one is first reached. EveryServerKnows asks every primary
// of the map (the crawlsieve module must be on all of them to be used);
// ServersEpoch is the count of map reads.
//
// RequireOnReconnect's key is read again after every re-read of the slot
// map (a MOVED, a failed attempt): a replica promoted before it had synced
// (or a primary restarted without persistence) serves an empty slot, and
// RedisSieve must stop with DataLoss rather than start the crawl over on an
// empty filter. A read that fails (the cluster still failing over) is not
// taken for a loss: the next re-read asks again.
//
//   absl::StatusOr<std::unique_ptr<ClusterConnection>> c =
//       ClusterConnection::Open(options);  // options.cluster_nodes: seeds
//   (*c)->Run({{"SET", "{crawl}:meta", "v3 ..."}, {"BITCOUNT", "{crawl:bits:7}"}});
//
// Threading: none; RedisSieve uses it under its mutex.
#ifndef SIEVE_SRC_REDIS_CLUSTER_CLUSTER_CONNECTION_H_
#define SIEVE_SRC_REDIS_CLUSTER_CLUSTER_CONNECTION_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../connection.h"
#include "absl/status/statusor.h"
#include "key_slot.h"
#include "sieve/redis_sieve.h"

namespace sieve::internal {

// The key a command is routed by (see above); nullopt for a keyless one.
std::optional<std::string> RoutingKey(const RedisCommand& command);

class ClusterConnection final : public RedisLink {
 public:
  // Reads the slot map from the first seed of options.cluster_nodes that
  // answers. Unavailable if none does or the map does not cover every slot.
  static absl::StatusOr<std::unique_ptr<ClusterConnection>> Open(const RedisSieveOptions& options);

  void RequireOnReconnect(std::string key, std::string value) override;
  absl::StatusOr<std::string> Register(const std::string& source) override;
  absl::StatusOr<std::vector<RedisReply>> Run(const std::vector<RedisCommand>& commands) override;
  // False if a primary of the current map does not know `command`, or
  // cannot be asked now (unreachable: asked again after the next re-read).
  absl::StatusOr<bool> EveryServerKnows(const std::string& command) override;
  uint64_t ServersEpoch() const override { return map_reads_; }
  absl::Status AwaitReplica(const std::string& key) override;

  // "host:port" of the primary serving `slot` by the current map ("" if
  // none); for tests and benchmarks.
  std::string PrimaryOf(int slot) const;
  // How many times the slot map was read (Open's read included).
  uint64_t map_reads() const { return map_reads_; }

 private:
  explicit ClusterConnection(const RedisSieveOptions& options);
  absl::Status ReadSlotMap();
  // DataLoss if the required key's primary answers it with another value
  // (nil included); OK if it matches or cannot be read now.
  absl::Status CheckRequired();
  // The connection to a primary, opened (scripts loaded) on first use.
  absl::StatusOr<RedisConnection*> Node(const std::string& address);
  void SetPrimary(int slot, const std::string& address);
  // The primary serving the command's slot (any node for a keyless one).
  std::string AddressFor(const RedisCommand& command) const;

  RedisSieveOptions node_options_;  // one attempt per call; host/port per node
  RedisRetryPolicy retry_;
  std::vector<std::string> seeds_;
  std::map<std::string, std::unique_ptr<RedisConnection>> nodes_;
  std::vector<std::string> addresses_;             // the primaries of the map
  std::array<int16_t, kClusterSlots> slot_owner_;  // index into addresses_, -1 none
  std::vector<std::string> scripts_;
  std::vector<std::pair<std::string, std::string>> required_;  // key, value
  uint64_t map_reads_ = 0;
  // AwaitReplica's knowledge of a primary's replicas, cleared at each map
  // read: whether it has one that kept up, and how many waits until the
  // primary is asked again.
  struct ReplicaState {
    bool replicated = false;
    uint32_t waits_until_ask = 0;
  };
  std::map<std::string, ReplicaState> replicas_;  // by primary "host:port"
};

}  // namespace sieve::internal

#endif  // SIEVE_SRC_REDIS_CLUSTER_CLUSTER_CONNECTION_H_
