// RequestTracker: the server's memory of what it was asked. Counts requests per
// path, keeps the request log and the peak number of requests in flight.
// Begin is called when a request has been parsed (before routing) and End when
// its response has been written; both run on server worker threads.
// Threading: all methods are safe to call concurrently.
#ifndef TESTSITE_SRC_REQUEST_TRACKER_H_
#define TESTSITE_SRC_REQUEST_TRACKER_H_

#include <httplib.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "testsite/test_site.h"

namespace testsite {

class RequestTracker {
 public:
  explicit RequestTracker(bool keep_log) : keep_log_(keep_log) {}

  // Returns the request's sequence number, for Routed.
  uint64_t Begin(const httplib::Request& request);
  // The handler returned: records the status and a first end time before any
  // byte is sent, so a client never sees a response the log does not hold yet.
  void Routed(uint64_t seq, int status);
  // Ends the request Begin saw at the same address; ignores requests Begin
  // never saw (cpp-httplib logs malformed requests without routing them).
  void End(const httplib::Request& request, const httplib::Response& response);

  uint64_t Count(std::string_view path) const;
  uint64_t CountWithPrefix(std::string_view prefix) const;
  uint64_t Total() const;
  std::map<std::string, uint64_t> Counts() const;
  std::vector<RequestRecord> Log() const;
  // Peak number of requests between Begin and Routed at once. That window lies
  // inside the client's view of the request, so the peak never over-counts.
  int MaxInFlight() const;
  void Reset();

 private:
  const bool keep_log_;
  mutable std::mutex mutex_;
  std::map<std::string, uint64_t, std::less<>> counts_ ABSL_GUARDED_BY(mutex_);
  uint64_t total_ ABSL_GUARDED_BY(mutex_) = 0;
  std::vector<RequestRecord> log_ ABSL_GUARDED_BY(mutex_);
  // Requests between Begin and End, by address, with their sequence number.
  // An address is reused only after End, since httplib logs every request it
  // routed before reading the next one on that connection.
  std::unordered_map<const httplib::Request*, uint64_t> in_flight_ ABSL_GUARDED_BY(mutex_);
  // Sequence numbers never restart; log_[seq - log_first_seq_] is request seq.
  uint64_t next_seq_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t log_first_seq_ ABSL_GUARDED_BY(mutex_) = 0;
  // The log record of request `seq`, or null (log off, or reset since).
  RequestRecord* Record(uint64_t seq) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  int handling_ ABSL_GUARDED_BY(mutex_) = 0;  // between Begin and Routed
  int max_in_flight_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace testsite

#endif  // TESTSITE_SRC_REQUEST_TRACKER_H_
