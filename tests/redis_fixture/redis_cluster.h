// A private Redis Cluster for a test or a benchmark: `primaries`
// redis-servers (and `replicas` replicas of each) with --cluster-enabled yes
// and a 1 s node timeout on free loopback ports (bus ports +10000 free
// too), each in its own scratch directory, joined by `redis-cli --cluster
// create` (fewer than 3 primaries, which redis-cli refuses: by CLUSTER
// MEET and ADDSLOTSRANGE). Start returns once every node says
// cluster_state:ok and every replica receives its primary's stream. A
// missing redis-server or redis-cli is a failure (Start returns it), never
// a skip. Killed by the destructor. With `with_module`, every node loads
// the crawlsieve module (RedisServer(true)), so RedisSieve's filter step
// goes through CRAWLSIEVE.FILTER; except node `node_without_module` (>= 0):
// a cluster where one node lacks it.
//
//   RedisCluster cluster(3);
//   ASSERT_TRUE(cluster.Start().ok());
//   sieve::RedisSieveOptions options = cluster.Options("t");
//
// Threading: one thread.
#ifndef TESTS_REDIS_FIXTURE_REDIS_CLUSTER_H_
#define TESTS_REDIS_FIXTURE_REDIS_CLUSTER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "redis_fixture/redis_server.h"
#include "sieve/redis_sieve.h"

namespace sieve_test {

class RedisCluster {
 public:
  // with_module: every node loads the crawlsieve module (RedisServer's),
  // but node `node_without_module` (if >= 0).
  explicit RedisCluster(int primaries, int replicas = 0, bool with_module = false,
                        int node_without_module = -1);
  RedisCluster(const RedisCluster&) = delete;
  RedisCluster& operator=(const RedisCluster&) = delete;

  absl::Status Start();
  // Options for a RedisSieve on this cluster, frontier `name`: every node a
  // seed, small filter shards (4 KiB) so a test's filter spans many slots,
  // fast retries that still outlast a failover (~3 s with a 1 s node timeout).
  sieve::RedisSieveOptions Options(const std::string& name) const;

  size_t size() const { return nodes_.size(); }
  RedisServer& node(size_t i) { return *nodes_[i]; }
  std::string Address(size_t i) const;
  // The node a command is answered by on its own (not following MOVED).
  std::string CommandOn(size_t i, const std::vector<std::string>& args) const;
  // Calls of command `name` (e.g. "crawlsieve.filter", "wait") served by the
  // live nodes since they started, from INFO commandstats.
  long long CommandCalls(const std::string& name) const;
  // The index of the live primary serving `slot`, by asking the nodes; -1
  // if none claims it.
  int PrimaryOf(int slot) const;
  // `crawl --frontier` for this cluster: "redis-cluster://127.0.0.1:P,.../NAME"
  // (the live nodes).
  std::string FrontierUrl(const std::string& name) const;
  // SIGKILLs the live primary serving `key`'s slot; its index, -1 if none.
  int KillPrimaryOf(const std::string& key);
  // The node id (CLUSTER MYID) of node i.
  std::string Id(size_t i) const;
  // Waits until every live node reports cluster_state:ok and agrees that
  // `slot` is served by a live primary.
  absl::Status WaitHealthy(int slot = 0) const;
  // SIGKILLs node i (WaitHealthy and PrimaryOf then skip it).
  void Kill(size_t i);

 private:
  absl::Status Create(const std::vector<std::string>& addresses);
  absl::Status JoinByHand();
  // A replica's link is up once its first sync is done, but its primary
  // streams writes to it only after the replica's first REPLCONF ACK (up to
  // a second later): a primary killed in between leaves a replica with
  // nothing, and the frontier is lost. So a write on each primary, then a
  // wait until every replica's offset moved.
  absl::Status AwaitStreaming() const;

  int primaries_;
  int replicas_;
  std::vector<std::unique_ptr<RedisServer>> nodes_;
  std::vector<bool> dead_;
};

}  // namespace sieve_test

#endif  // TESTS_REDIS_FIXTURE_REDIS_CLUSTER_H_
