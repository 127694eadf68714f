// A frontier's queue partitions on a Redis Cluster: its host queues, host
// and URL leases split by host over P key sets ("{NAME}:..." for partition
// 0, "{NAME:qI}:..." for I > 0), so the queue spreads over the cluster's
// primaries as the filter's shards do (redis_sieve.h, "Redis Cluster").
// Every script of the queue takes its partition's prefix; a host belongs
// to one partition for the frontier's life (P is fixed in NAME:meta).
#ifndef SIEVE_SRC_REDIS_QUEUE_PARTITIONS_H_
#define SIEVE_SRC_REDIS_QUEUE_PARTITIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sieve::internal {

// P of a new cluster frontier when RedisSieveOptions::queue_partitions is
// 0: several per primary of a cluster of 3-6, so the slots' spread over the
// primaries evens out, few enough that a sweep (one call per partition) is
// cheap.
inline constexpr uint32_t kDefaultClusterPartitions = 16;
inline constexpr uint32_t kMaxQueuePartitions = 1024;

// NAME:meta's field for P > 1, between the filter's fields and the packed
// queue's (" queue=deflate" stays last: the scripts test the end).
inline constexpr char kPartitionsMetaField[] = " parts=";

// NAME:meta as written: the filter's part, the partitions (P > 1), the
// packed queue's field.
std::string ComposeMeta(const std::string& filter, uint32_t partitions, bool packed);

struct MetaFields {
  std::string filter;  // FilterLayout::MetaString's part
  uint32_t partitions = 1;
  bool packed = false;
};
// The fields of a stored NAME:meta; nullopt if its parts= field is not a
// number in [2, kMaxQueuePartitions].
std::optional<MetaFields> SplitMeta(std::string_view stored);

// The key prefixes of the `partitions` partitions of frontier `name` on a
// cluster, by partition: "{NAME}:" for 0 (the key set of a frontier of one
// partition, and where the journal, the page budget and NAME:moves live);
// for I > 0 "{NAME:qI}:", or "{NAME:qI.J}:" with the least J > 0 that puts
// it in its share of the slot space. The slot space is cut into
// `partitions` equal ranges; partition 0 has the range its slot falls in,
// the others the remaining ranges in order. So the partitions spread over
// the primaries as evenly as the slots (a primary of 1/N of the slots gets
// P/N partitions, give or take one), not as chance falls (16 hashed tags
// on 3 primaries put 6-10 on one). Part of the frontier's format: a change
// here moves every queue (cluster_test.cc freezes some prefixes).
std::vector<std::string> PartitionPrefixes(const std::string& name, uint32_t partitions);

// The partition of host `host` among `partitions` (`host` may be a lane's
// queue id, lane_queue.h: a host's lanes share its partition): 0 for the
// shared queue (""), else XXH3 of the host (bloom::HashKey), so every process and build
// agrees.
uint32_t PartitionOfHost(std::string_view host, uint32_t partitions);

}  // namespace sieve::internal

#endif  // SIEVE_SRC_REDIS_QUEUE_PARTITIONS_H_
