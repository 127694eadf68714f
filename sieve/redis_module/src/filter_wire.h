// The arguments of CRAWLSIEVE.FILTER, written by RedisSieve on a Redis
// Cluster (sieve/src/redis/cluster_push.cc) and read by the crawlsieve
// module (filter_command.cc): one definition for both sides.
//
//   CRAWLSIEVE.FILTER <shard key> <trip key> <trip id> <k> <mode> <record ms> <offsets>
//
// The Lua FILTER script's KEYS and ARGV (sieve/src/redis/scripts.cc) in the
// same order, but the offsets are one binary argument: n * k little-endian
// u32 bit offsets in the shard, URL-major (URL i's at i*k .. i*k+k-1). The
// two keys are the command's first and last key (one slot: the trip key
// carries the shard key's hash tag), so a cluster node routes and checks
// it as it does GET. The reply is the script's: n characters, '1' new,
// '0' seen; "" for a replay behind its client's record.
//
//   std::string offsets;
//   crawlsieve_wire::AppendU32(offsets, 12345);  // per probe
//
// Threading: constants only.
#ifndef SIEVE_REDIS_MODULE_SRC_FILTER_WIRE_H_
#define SIEVE_REDIS_MODULE_SRC_FILTER_WIRE_H_

#include <cstddef>

#include "push_wire.h"

namespace crawlsieve_wire {

inline constexpr char kFilterCommand[] = "CRAWLSIEVE.FILTER";
inline constexpr size_t kOffsetBytes = 4;

}  // namespace crawlsieve_wire

#endif  // SIEVE_REDIS_MODULE_SRC_FILTER_WIRE_H_
