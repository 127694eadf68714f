// testsite: serves the deterministic generated site on loopback until SIGINT or
// SIGTERM, for the demo and for benchmarks run by hand.
//
//   testsite --pages 10000 --links-per-page 10 --port 8080 --redirects
//   testsite --pages 100 --list      # prints the expected page URLs, exits
//   testsite --hosts 1e6             # a web of many loopback hosts (web_command.h)
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "testsite/test_site.h"
#include "testsite/web_command.h"

namespace {

constexpr int kUsageError = 2;

constexpr char kUsage[] =
    "usage: testsite [--pages N] [--port P] [--links-per-page L] [--latency-ms MS]\n"
    "                [--seed S] [--host ADDR] [--threads T] [--page-bytes B]\n"
    "                [--redirects] [--non-html] [--slow] [--stalled] [--nofollow]\n"
    "                [--base-href] [--compress] [--robots-txt TEXT] [--list]\n"
    "                [--fault-rate F] [--fault-stall-ms MS] [--fault-retry-after S]\n"
    "                [--no-request-log] [--counts-file PATH]\n"
    "                [--epoch N] [--changed-fraction F] [--removed-fraction F]\n"
    "                [--added-fraction F] [--validators]\n"
    "                [--rate-limit R] [--rate-burst B] [--rate-retry-after S]\n"
    "                [--load-capacity R]\n"
    "Serves a deterministic generated site on ADDR (127.0.0.1) until SIGINT/SIGTERM.\n"
    "testsite --hosts N --help: the simulated web of N loopback hosts instead.\n"
    "--list prints the URLs a complete crawl fetches and exits (with --port 0 the\n"
    "port in them is the ephemeral one picked for this run).\n"
    "--fault-rate F: that fraction of the pages fails its first request (500, 503,\n"
    "reset, truncated body) or stalls --fault-stall-ms (300) mid-body; a 503 says\n"
    "Retry-After 0 or --fault-retry-after (1).\n"
    "--counts-file PATH: on SIGUSR1 and at exit, writes one line per requested path:\n"
    "'<path> TAB <requests> TAB <failures injected>'.\n"
    "--epoch N: serve the site as changed N times: each epoch edits --changed-fraction\n"
    "(0.05) of the pages, removes --removed-fraction (0.01) and adds --added-fraction\n"
    "(0.01), linked from the root; the same seed gives the same changes.\n"
    "--validators: ETag and Last-Modified on pages, 304 to a matching conditional GET.\n"
    "--rate-limit R: a token bucket of R requests/s (--rate-burst 5 tokens); past it 429,\n"
    "with Retry-After S when --rate-retry-after is given.\n"
    "--load-capacity R: latency grows with load: --latency-ms x (1 + rate / R).\n";

struct Command {
  testsite::SiteOptions options;
  bool list = false;
  std::string counts_file;
};

// Parses "--flag value" and "--flag=value"; returns an error message or empty.
class FlagParser {
 public:
  explicit FlagParser(std::vector<std::string_view> args) : args_(std::move(args)) {}

  std::string Parse(Command& command) {
    for (index_ = 0; index_ < args_.size(); ++index_) {
      std::string_view arg = args_[index_];
      std::optional<std::string_view> inline_value;
      if (const size_t eq = arg.find('='); eq != std::string_view::npos) {
        inline_value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
      }
      if (std::string error = ParseOne(arg, inline_value, command); !error.empty()) return error;
    }
    return "";
  }

 private:
  std::string ParseOne(std::string_view flag, std::optional<std::string_view> inline_value,
                       Command& command) {
    testsite::SiteOptions& o = command.options;
    if (IsSwitch(flag, inline_value)) {
      if (flag == "--redirects") o.redirects = true;
      if (flag == "--non-html") o.non_html = true;
      if (flag == "--slow") o.slow = true;
      if (flag == "--stalled") o.stalled = true;
      if (flag == "--nofollow") o.nofollow = true;
      if (flag == "--base-href") o.base_href = true;
      if (flag == "--compress") o.compress = true;
      if (flag == "--list") command.list = true;
      if (flag == "--no-request-log") o.keep_request_log = false;
      if (flag == "--validators") o.validators = true;
      return "";
    }
    if (!IsValueFlag(flag)) return "unknown flag " + std::string(flag);
    std::optional<std::string_view> value = inline_value;
    if (!value && index_ + 1 < args_.size()) value = args_[++index_];
    if (!value) return std::string(flag) + " needs a value";
    const absl::string_view text(value->data(), value->size());
    bool ok = false;
    if (flag == "--pages")
      ok = absl::SimpleAtoi(text, &o.pages);
    else if (flag == "--port")
      ok = absl::SimpleAtoi(text, &o.port);
    else if (flag == "--links-per-page")
      ok = absl::SimpleAtoi(text, &o.links_per_page);
    else if (flag == "--latency-ms")
      ok = absl::SimpleAtoi(text, &o.latency_ms);
    else if (flag == "--seed")
      ok = absl::SimpleAtoi(text, &o.seed);
    else if (flag == "--threads")
      ok = absl::SimpleAtoi(text, &o.threads);
    else if (flag == "--page-bytes")
      ok = absl::SimpleAtoi(text, &o.page_bytes);
    else if (flag == "--host")
      ok = !(o.host = std::string(*value)).empty();
    else if (flag == "--fault-rate")
      ok = absl::SimpleAtod(text, &o.fault_rate);
    else if (flag == "--fault-retry-after")
      ok = absl::SimpleAtoi(text, &o.fault_retry_after_s);
    else if (flag == "--fault-stall-ms")
      ok = absl::SimpleAtoi(text, &o.fault_stall_ms);
    else if (flag == "--counts-file")
      ok = !(command.counts_file = std::string(*value)).empty();
    else if (flag == "--epoch")
      ok = absl::SimpleAtoi(text, &o.epoch);
    else if (flag == "--changed-fraction")
      ok = absl::SimpleAtod(text, &o.changed_fraction);
    else if (flag == "--removed-fraction")
      ok = absl::SimpleAtod(text, &o.removed_fraction);
    else if (flag == "--added-fraction")
      ok = absl::SimpleAtod(text, &o.added_fraction);
    else if (flag == "--rate-limit")
      ok = absl::SimpleAtod(text, &o.rate_limit);
    else if (flag == "--rate-burst")
      ok = absl::SimpleAtoi(text, &o.rate_burst);
    else if (flag == "--rate-retry-after")
      ok = absl::SimpleAtoi(text, &o.rate_limit_retry_after);
    else if (flag == "--load-capacity")
      ok = absl::SimpleAtod(text, &o.load_capacity);
    else if (flag == "--robots-txt")
      ok = !(o.robots_txt = std::string(*value)).empty();
    else
      return "unknown flag " + std::string(flag);
    if (!ok) return "bad value for " + std::string(flag) + ": '" + std::string(*value) + "'";
    return "";
  }

  static bool IsValueFlag(std::string_view flag) {
    static constexpr std::string_view kValueFlags[] = {"--pages",
                                                       "--port",
                                                       "--links-per-page",
                                                       "--latency-ms",
                                                       "--seed",
                                                       "--threads",
                                                       "--page-bytes",
                                                       "--host",
                                                       "--robots-txt",
                                                       "--fault-rate",
                                                       "--fault-stall-ms",
                                                       "--counts-file",
                                                       "--fault-retry-after",
                                                       "--epoch",
                                                       "--changed-fraction",
                                                       "--removed-fraction",
                                                       "--added-fraction",
                                                       "--rate-limit",
                                                       "--rate-burst",
                                                       "--rate-retry-after",
                                                       "--load-capacity"};
    for (std::string_view f : kValueFlags) {
      if (flag == f) return true;
    }
    return false;
  }

  static bool IsSwitch(std::string_view flag, std::optional<std::string_view> inline_value) {
    static constexpr std::string_view kSwitches[] = {
        "--redirects", "--non-html", "--slow", "--stalled",        "--nofollow",
        "--base-href", "--compress", "--list", "--no-request-log", "--validators"};
    for (std::string_view s : kSwitches) {
      if (flag == s && !inline_value) return true;
    }
    return false;
  }

  std::vector<std::string_view> args_;
  size_t index_ = 0;
};

// Blocks SIGINT, SIGTERM and SIGUSR1 in every thread (the server's threads
// inherit the mask), so that main can sigwait for them.
sigset_t BlockStopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

// Writes the per-path counts to `path` through a temporary file and a rename,
// so a reader never sees half a file.
bool WriteCounts(const testsite::TestSite& site, const std::string& path) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    for (const auto& [request_path, count] : site.RequestCounts()) {
      out << request_path << '\t' << count << '\t' << site.FailuresInjected(request_path) << '\n';
    }
    if (!out.flush()) return false;
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  return !error;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (testsite::IsWebCommand(args)) return testsite::RunWebCommand(args);
  for (std::string_view arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
  }
  Command command;
  if (std::string error = FlagParser(args).Parse(command); !error.empty()) {
    std::cerr << "testsite: " << error << "\n" << kUsage;
    return kUsageError;
  }
  if (absl::Status valid = testsite::ValidateSiteOptions(command.options); !valid.ok()) {
    std::cerr << "testsite: " << valid.message() << "\n" << kUsage;
    return kUsageError;
  }
  const sigset_t stop_signals = BlockStopSignals();
  auto site = testsite::TestSite::Start(command.options);
  if (!site.ok()) {
    std::cerr << "testsite: " << site.status().message() << "\n";
    return EXIT_FAILURE;
  }
  if (command.list) {
    for (const std::string& url : (*site)->PageUrls()) std::cout << url << "\n";
    return EXIT_SUCCESS;
  }
  std::cout << "serving " << command.options.pages << " pages at " << (*site)->RootUrl()
            << std::endl;
  int signal_number = 0;
  while (sigwait(&stop_signals, &signal_number) == 0 && signal_number == SIGUSR1) {
    if (!command.counts_file.empty() && !WriteCounts(**site, command.counts_file)) {
      std::cerr << "testsite: cannot write " << command.counts_file << "\n";
    }
  }
  std::cerr << "testsite: stopping on signal " << signal_number << ", served "
            << (*site)->TotalRequests() << " requests\n";
  (*site)->Stop();
  if (!command.counts_file.empty() && !WriteCounts(**site, command.counts_file)) {
    std::cerr << "testsite: cannot write " << command.counts_file << "\n";
    return EXIT_FAILURE;
  }
  return EXIT_SUCCESS;
}
