#include "testsite/web_command.h"

#include <signal.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "testsite/simulated_web.h"

namespace testsite {
namespace {

constexpr int kUsageError = 2;
// How often the first request is looked for until it came.
constexpr long kFirstRequestPollNs = 5'000'000;

constexpr char kUsage[] =
    "usage: testsite --hosts N [--largest-host N] [--zipf S] [--min-host-pages N]\n"
    "                [--links-per-page L] [--on-host-share F] [--seed S] [--port P]\n"
    "                [--threads T] [--page-bytes B] [--robots-every K] [--keep-alive-s S]\n"
    "Serves a simulated web of N hosts, host i at 127.1.0.0 + i, all on port P and on\n"
    "loopback only, until SIGINT/SIGTERM. Host i has max(min, largest / (i+1)^S)\n"
    "pages of L links, a share F of them on the host (defaults: 1e6 hosts, 1e8, 1.2,\n"
    "1, 100 links, 0.8). Every K-th host serves an allow-all robots.txt, the others\n"
    "404. SIGUSR1 prints the request counts. Counts accept 1e6.\n";

// A count written "1000000" or "1e6".
bool ParseCount(absl::string_view text, uint64_t* out) {
  double value = 0;
  if (absl::SimpleAtoi(text, out)) return true;
  if (!absl::SimpleAtod(text, &value) || !(value >= 0) || value > 1.8e19 ||
      value != std::floor(value)) {
    return false;
  }
  *out = static_cast<uint64_t>(value);
  return true;
}

// Returns an error message, or "" with `options` filled in.
std::string ParseFlags(const std::vector<std::string_view>& args, WebOptions& o) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view flag = args[i];
    std::optional<std::string_view> value;
    if (const size_t eq = flag.find('='); eq != std::string_view::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    }
    if (!value) return std::string(flag) + " needs a value";
    const absl::string_view text(value->data(), value->size());
    uint64_t count = 0;
    bool ok = false;
    if (flag == "--hosts") {
      ok = ParseCount(text, &o.hosts);
    } else if (flag == "--largest-host") {
      ok = ParseCount(text, &o.largest_host_pages);
    } else if (flag == "--min-host-pages") {
      ok = ParseCount(text, &o.min_host_pages);
    } else if (flag == "--zipf") {
      ok = absl::SimpleAtod(text, &o.zipf_exponent);
    } else if (flag == "--on-host-share") {
      ok = absl::SimpleAtod(text, &o.on_host_share);
    } else if (flag == "--seed") {
      ok = ParseCount(text, &o.seed);
    } else if (flag == "--robots-every") {
      ok = ParseCount(text, &o.robots_every);
    } else if (flag == "--keep-alive-s") {
      ok = ParseCount(text, &count) && count <= 3600;
      o.keep_alive_timeout_s = static_cast<int>(count);
    } else if (flag == "--links-per-page" || flag == "--port" || flag == "--threads" ||
               flag == "--page-bytes") {
      ok = ParseCount(text, &count) && count <= (1u << 30);
      const int n = static_cast<int>(count);
      if (flag == "--links-per-page") o.links_per_page = n;
      if (flag == "--port") o.port = n;
      if (flag == "--threads") o.threads = n;
      if (flag == "--page-bytes") o.page_bytes = n;
    } else {
      return "unknown flag " + std::string(flag);
    }
    if (!ok) return "bad value for " + std::string(flag) + ": '" + std::string(*value) + "'";
  }
  return "";
}

sigset_t BlockStopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

std::string CountsLine(const SimulatedWeb& web) {
  return absl::StrFormat(
      "requests %d pages %d robots %d not_found %d hosts_requested %d hosts_linked %d",
      web.TotalRequests(), web.PagesServed(), web.RobotsRequests(), web.NotFound(),
      web.DistinctHostsRequested(), web.DistinctHostsLinked());
}

// Waits for a stop signal; prints the first request's time when it comes and
// the counts on SIGUSR1. Returns the stop signal.
int ServeUntilStopped(const SimulatedWeb& web, const sigset_t& signals) {
  bool first_printed = false;
  while (true) {
    const timespec poll{0, kFirstRequestPollNs};
    const int signal_number =
        first_printed ? sigwaitinfo(&signals, nullptr) : sigtimedwait(&signals, nullptr, &poll);
    if (!first_printed && web.FirstRequestTime()) {
      const double at =
          std::chrono::duration<double>(web.FirstRequestTime()->time_since_epoch()).count();
      std::cout << absl::StrFormat("first request at %.3f", at) << std::endl;
      first_printed = true;
    }
    if (signal_number == SIGUSR1) std::cout << CountsLine(web) << std::endl;
    if (signal_number == SIGINT || signal_number == SIGTERM) return signal_number;
  }
}

}  // namespace

bool IsWebCommand(const std::vector<std::string_view>& args) {
  for (std::string_view arg : args) {
    if (arg == "--hosts" || arg.starts_with("--hosts=")) return true;
  }
  return false;
}

int RunWebCommand(const std::vector<std::string_view>& args) {
  for (std::string_view arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
  }
  WebOptions options;
  if (std::string error = ParseFlags(args, options); !error.empty()) {
    std::cerr << "testsite: " << error << "\n" << kUsage;
    return kUsageError;
  }
  if (absl::Status valid = ValidateWebOptions(options); !valid.ok()) {
    std::cerr << "testsite: " << valid.message() << "\n" << kUsage;
    return kUsageError;
  }
  const sigset_t signals = BlockStopSignals();
  auto web = SimulatedWeb::Start(options);
  if (!web.ok()) {
    std::cerr << "testsite: " << web.status().message() << "\n";
    return 1;
  }
  const WebGraph& graph = (*web)->graph();
  std::cout << "serving " << graph.hosts() << " hosts (" << graph.TotalPages() << " pages) at "
            << (*web)->RootUrl(0) << " ... " << (*web)->RootUrl(graph.hosts() - 1) << std::endl;
  const int signal_number = ServeUntilStopped(**web, signals);
  (*web)->Stop();
  std::cerr << "testsite: stopping on signal " << signal_number << ", " << CountsLine(**web)
            << "\n";
  return 0;
}

}  // namespace testsite
