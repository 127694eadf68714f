// The benchmark's own Redis Cluster: `primaries` redis-servers (no
// replicas) on 127.0.0.1 with --cluster-enabled yes, joined by `redis-cli
// --cluster create`, killed at exit; and their CPU time, for per-core
// efficiency (a cluster on one 2-core machine shares the cores with its
// clients: raw speed-up says nothing, URLs per CPU-second does).
//
// Threading: one thread.
#ifndef BENCH_REDIS_SIEVE_CLUSTER_HARNESS_H_
#define BENCH_REDIS_SIEVE_CLUSTER_HARNESS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "redis_harness.h"

namespace redis_bench {

class ClusterHarness {
 public:
  explicit ClusterHarness(int primaries);
  absl::Status Start();
  // "127.0.0.1:PORT" of every node.
  std::vector<std::string> Nodes() const;
  // CPU seconds used by all nodes so far.
  double CpuSeconds() const;
  // Sum of INFO memory used_memory over the nodes.
  uint64_t UsedMemory() const;
  RedisHarness& node(size_t i) { return *nodes_[i]; }
  size_t size() const { return nodes_.size(); }

 private:
  std::vector<std::unique_ptr<RedisHarness>> nodes_;
};

}  // namespace redis_bench

#endif  // BENCH_REDIS_SIEVE_CLUSTER_HARNESS_H_
