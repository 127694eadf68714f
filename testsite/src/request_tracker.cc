#include "request_tracker.h"

#include <algorithm>
#include <chrono>

namespace testsite {

uint64_t RequestTracker::Begin(const httplib::Request& request) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t seq = next_seq_++;
  in_flight_[&request] = seq;
  max_in_flight_ = std::max(max_in_flight_, ++handling_);
  ++total_;
  auto it = counts_.find(request.path);
  if (it == counts_.end()) it = counts_.emplace(request.path, 0).first;
  ++it->second;
  if (!keep_log_) return seq;
  log_.push_back({.method = request.method,
                  .path = request.path,
                  .target = request.target,
                  .user_agent = request.get_header_value("User-Agent"),
                  .if_none_match = request.get_header_value("If-None-Match"),
                  .if_modified_since = request.get_header_value("If-Modified-Since"),
                  .remote_port = request.remote_port,
                  .start_time = now,
                  .end_time = now});
  return seq;
}

RequestRecord* RequestTracker::Record(uint64_t seq) {
  if (!keep_log_ || seq < log_first_seq_) return nullptr;
  return &log_[seq - log_first_seq_];
}

void RequestTracker::Routed(uint64_t seq, int status) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  --handling_;
  if (RequestRecord* record = Record(seq)) {
    record->status = status;
    record->end_time = now;
  }
}

void RequestTracker::End(const httplib::Request& request, const httplib::Response& response) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = in_flight_.find(&request);
  if (it == in_flight_.end()) return;
  const uint64_t seq = it->second;
  in_flight_.erase(it);
  if (RequestRecord* record = Record(seq)) {
    record->status = response.status;  // error handlers may have changed it
    record->end_time = now;
  }
}

uint64_t RequestTracker::Count(std::string_view path) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = counts_.find(path);
  return it == counts_.end() ? 0 : it->second;
}

uint64_t RequestTracker::CountWithPrefix(std::string_view prefix) const {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t sum = 0;
  for (auto it = counts_.lower_bound(prefix);
       it != counts_.end() && std::string_view(it->first).substr(0, prefix.size()) == prefix;
       ++it) {
    sum += it->second;
  }
  return sum;
}

uint64_t RequestTracker::Total() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return total_;
}

std::map<std::string, uint64_t> RequestTracker::Counts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {counts_.begin(), counts_.end()};
}

std::vector<RequestRecord> RequestTracker::Log() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return log_;
}

int RequestTracker::MaxInFlight() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return max_in_flight_;
}

void RequestTracker::Reset() {
  std::lock_guard<std::mutex> lock(mutex_);
  counts_.clear();
  total_ = 0;
  log_.clear();
  log_first_seq_ = next_seq_;
  max_in_flight_ = handling_;
}

}  // namespace testsite
