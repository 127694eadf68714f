// A host's priority lane in Redis, as the scripts name it (lua/prelude.lua,
// "queue id"): the host itself for priority 0 (the key layout of frontiers
// written before lanes), else the host, a NUL byte and the priority in
// decimal. Pushes, journal records and NAME:lhosts carry it, so a URL
// given back or expired returns to its own lane; a host key holds no NUL.
//
//   LaneQueueId("https://a.example:443", 5);  // "https://a.example:443\0" "5"
//   HostOfLaneQueue(id);                      // "https://a.example:443"
//
// Threading: pure functions.
#ifndef SIEVE_SRC_REDIS_LANE_QUEUE_H_
#define SIEVE_SRC_REDIS_LANE_QUEUE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace sieve::internal {

std::string LaneQueueId(std::string host, int32_t priority);
// The host part of a queue id (all of it for priority 0).
std::string_view HostOfLaneQueue(std::string_view queue_id);
// True if the queue id names a lane other than priority 0's.
bool IsNonZeroLane(std::string_view queue_id);

}  // namespace sieve::internal

#endif  // SIEVE_SRC_REDIS_LANE_QUEUE_H_
