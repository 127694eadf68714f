#include "fault_injector.h"

#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "connection_reset.h"
#include "content_types.h"
#include "seeded_random.h"

namespace testsite {
namespace {

// Random stream of the fault draws; see SeededRandom (1-4 are taken).
constexpr uint64_t kFaultStream = 5;
constexpr int kFaultKinds = 5;

// fault_rate in [0, 1] as a threshold on a uniform 64-bit draw.
uint64_t ThresholdOf(double rate) {
  if (rate >= 1) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(rate * 18446744073709551616.0);  // 2^64
}

// Sends the first half of `body`; the provider is then called again at
// offset half, where `rest` decides what happens to the remainder.
void SetHalfThen(httplib::Response& response, const std::string& body,
                 std::function<bool(std::string_view rest, httplib::DataSink&)> rest) {
  auto shared = std::make_shared<const std::string>(body);
  const size_t half = shared->size() / 2;
  response.set_content_provider(
      shared->size(), kHtml,
      [shared, half, rest = std::move(rest)](size_t offset, size_t, httplib::DataSink& sink) {
        if (offset < half) return sink.write(shared->data() + offset, half - offset);
        return rest(std::string_view(*shared).substr(offset), sink);
      });
}

}  // namespace

FaultInjector::FaultInjector(const SiteOptions& options, const StopSignal& stop)
    : options_(options), stop_(stop), threshold_(ThresholdOf(options.fault_rate)) {}

std::optional<FaultKind> FaultInjector::FaultOf(uint64_t page) const {
  if (threshold_ == 0) return std::nullopt;
  SeededRandom random(options_.seed, page, kFaultStream);
  if (random.Next() >= threshold_) return std::nullopt;
  return static_cast<FaultKind>(random.Below(kFaultKinds));
}

bool FaultInjector::FirstRequest(uint64_t page) {
  std::lock_guard<std::mutex> lock(mu_);
  return requested_.insert(page).second;
}

bool FaultInjector::MaybeFault(uint64_t page, const std::string& body,
                               const httplib::Request& request, httplib::Response& response) {
  const std::optional<FaultKind> kind = FaultOf(page);
  if (!kind || !FirstRequest(page)) return false;
  Count(*kind);
  response.status = 200;
  switch (*kind) {
    case FaultKind::kHttp500:
    case FaultKind::kHttp503: {
      response.status = *kind == FaultKind::kHttp500 ? 500 : 503;
      if (*kind == FaultKind::kHttp503) {
        // Retry-After 0 or fault_retry_after_s, also from the seed and the page.
        SeededRandom random(options_.seed, page, kFaultStream);
        const bool zero = random.Next() % 2 == 0;
        response.set_header("Retry-After",
                            zero ? std::string("0") : absl::StrCat(options_.fault_retry_after_s));
      }
      const std::string error =
          absl::StrCat("<html><body>Error ", response.status, " (injected)</body></html>\n");
      SetHalfThen(response, error, [](std::string_view rest, httplib::DataSink& sink) {
        return sink.write(rest.data(), rest.size());
      });
      return true;
    }
    case FaultKind::kReset:
      SetHalfThen(response, body, [request](std::string_view, httplib::DataSink&) {
        ResetConnection(request.local_addr, request.local_port, request.remote_addr,
                        request.remote_port);
        return false;  // a failed write ends the connection if the reset did not
      });
      return true;
    case FaultKind::kTruncated:
      SetHalfThen(response, body, [](std::string_view, httplib::DataSink&) { return false; });
      return true;
    case FaultKind::kStall:
      SetHalfThen(response, body, [this](std::string_view rest, httplib::DataSink& sink) {
        if (stop_.WaitFor(std::chrono::milliseconds(options_.fault_stall_ms))) return false;
        return sink.write(rest.data(), rest.size());
      });
      return true;  // the whole page, only slow
  }
  return false;
}

void FaultInjector::Count(FaultKind kind) {
  std::lock_guard<std::mutex> lock(mu_);
  switch (kind) {
    case FaultKind::kHttp500:
      ++counts_.http_500;
      break;
    case FaultKind::kHttp503:
      ++counts_.http_503;
      break;
    case FaultKind::kReset:
      ++counts_.resets;
      break;
    case FaultKind::kTruncated:
      ++counts_.truncations;
      break;
    case FaultKind::kStall:
      ++counts_.stalls;
      break;
  }
}

uint64_t FaultInjector::FailuresOf(uint64_t page) const {
  const std::optional<FaultKind> kind = FaultOf(page);
  if (!kind || *kind == FaultKind::kStall) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  return requested_.contains(page) ? 1 : 0;
}

FaultCounts FaultInjector::Counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_;
}

}  // namespace testsite
