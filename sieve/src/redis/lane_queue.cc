#include "lane_queue.h"

#include "absl/strings/str_cat.h"

namespace sieve::internal {

std::string LaneQueueId(std::string host, int32_t priority) {
  if (priority == 0) return host;
  host.push_back('\0');
  absl::StrAppend(&host, priority);
  return host;
}

std::string_view HostOfLaneQueue(std::string_view queue_id) {
  return queue_id.substr(0, queue_id.find('\0'));
}

bool IsNonZeroLane(std::string_view queue_id) {
  return queue_id.find('\0') != std::string_view::npos;
}

}  // namespace sieve::internal
