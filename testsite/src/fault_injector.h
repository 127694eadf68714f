// FaultInjector: the seeded random faults of SiteOptions::fault_rate. Decides
// from the seed and the page number alone whether a page is faulty and how it
// fails, remembers which faulty pages already failed once (their later
// requests succeed), and counts what it did.
//
//   FaultInjector faults(options, stop);
//   if (faults.MaybeFault(page, body, request, response)) return;  // the fault is set
//   ... serve the page normally
//
// Threading: all methods are safe to call concurrently, from server workers.
#ifndef TESTSITE_SRC_FAULT_INJECTOR_H_
#define TESTSITE_SRC_FAULT_INJECTOR_H_

#include <httplib.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>

#include "absl/base/thread_annotations.h"
#include "stop_signal.h"
#include "testsite/site_options.h"
#include "testsite/test_site.h"

namespace testsite {

enum class FaultKind { kHttp500, kHttp503, kReset, kTruncated, kStall };

class FaultInjector {
 public:
  // Both references must outlive the injector.
  FaultInjector(const SiteOptions& options, const StopSignal& stop);

  // The fault page `page` gets on its first request, or nullopt for a healthy
  // page. A pure function of the seed and the page number.
  std::optional<FaultKind> FaultOf(uint64_t page) const;

  // On the first request of a faulty page, sets `response` to its fault
  // (`body` is the page, for the faults that send part of it; `request` names
  // the connection a reset breaks) and returns true; a stall's response is the
  // whole page, late. Otherwise returns false and leaves `response` alone.
  bool MaybeFault(uint64_t page, const std::string& body, const httplib::Request& request,
                  httplib::Response& response);

  // Requests of `page` that this injector made fail: 0 or 1.
  uint64_t FailuresOf(uint64_t page) const;
  FaultCounts Counts() const;

 private:
  // True the first time for each page, false afterwards.
  bool FirstRequest(uint64_t page);
  void Count(FaultKind kind);

  const SiteOptions& options_;
  const StopSignal& stop_;
  // Faulty pages never select below this (fault_rate scaled to 2^64).
  const uint64_t threshold_;

  mutable std::mutex mu_;
  // Faulty pages already requested once (their fault served).
  std::unordered_set<uint64_t> requested_ ABSL_GUARDED_BY(mu_);
  FaultCounts counts_ ABSL_GUARDED_BY(mu_);
};

}  // namespace testsite

#endif  // TESTSITE_SRC_FAULT_INJECTOR_H_
