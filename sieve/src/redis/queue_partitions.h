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

// The key prefix of partition `part` of frontier `name` on a cluster:
// "{NAME}:" for 0 (the key set of a frontier of one partition, and where
// the journal, the page budget and NAME:moves live), "{NAME:qI}:" else.
std::string PartitionPrefix(const std::string& name, uint32_t part);

// The partition of host `host` among `partitions`: 0 for the shared queue
// (""), else XXH3 of the host (bloom::HashKey), so every process and build
// agrees.
uint32_t PartitionOfHost(std::string_view host, uint32_t partitions);

}  // namespace sieve::internal

#endif  // SIEVE_SRC_REDIS_QUEUE_PARTITIONS_H_
