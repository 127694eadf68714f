// politeness-adaptive-bench: does --adaptive-delay settle on the rate a
// host allows? Three loopback testsite hosts, crawled at once:
//   limit-10  a token bucket of 10 requests/s (burst 5), 429 past it, 20 ms
//   limit-40  the same at 40 requests/s
//   load      no limit; latency 40 ms x (1 + rate / 10): 2x at 10 req/s
// Each run crawls all three for --seconds (60) with --per-host 4, robots
// off, a site of 10^6 pages per host (it never runs out), and reports from
// the servers' own logs:
//   ok/s      answered 200 per second over the run's last third
//   of limit  ok/s / the host's limit (target >= 0.8 under --adaptive-delay)
//   429       the share of its requests answered 429 (target <= 2%)
//   t80       the first second from which the 5 s average of ok/s stayed
//             >= 0.8 of the limit to the end ("-" when it never did)
//   lat p50/p90/max1s  the load host's server time over the last third, as
//             multiples of its unloaded 40 ms (target: the 1-s mean stays
//             < 2x once the rate stopped rising)
// Runs: --delay 0 (fixed), --delay 1s (fixed, the default), and
// --adaptive-delay --delay 0 (and --delay 10ms with --floor-run).
//
//   politeness-adaptive-bench [--seconds 60] [--retry-after]
//
// --retry-after: the limited hosts send Retry-After: 1 with their 429s (the
// crawler then pauses the host 1 s at each; see docs/politeness.md).
// The servers run in this process and share its 2 cores with the crawler.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "crawler/crawl.h"
#include "crawler/options.h"
#include "testsite/test_site.h"

namespace {

using Clock = std::chrono::steady_clock;

struct HostSpec {
  const char* name;
  double rate_limit;     // 0 = none
  int latency_ms;        // base latency
  double load_capacity;  // 0 = none
};

constexpr HostSpec kHosts[] = {
    {"limit-10", 10, 20, 0},
    {"limit-40", 40, 20, 0},
    {"load", 0, 40, 10},
};

struct Setup {
  int seconds = 60;
  bool retry_after = false;
  bool floor_run = false;
};

struct RunSpec {
  const char* name;
  double delay_s;
  bool adaptive;
};

struct HostResult {
  double ok_per_s = 0;
  double share_429 = 0;
  int64_t requests = 0;
  int t80 = -1;
  double lat_p50 = 0, lat_p90 = 0, lat_max_1s = 0;  // x base
};

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(p * static_cast<double>(values.size() - 1))];
}

HostResult Analyse(const HostSpec& spec, const std::vector<testsite::RequestRecord>& log,
                   Clock::time_point begin, int seconds) {
  HostResult r;
  std::vector<int> ok_per_second(static_cast<size_t>(seconds) + 1, 0);
  std::vector<double> latency_sum(ok_per_second.size(), 0);
  std::vector<int> latency_count(ok_per_second.size(), 0);
  std::vector<double> last_third_latency;
  int64_t refused = 0, ok_last_third = 0;
  const double third_start = seconds * 2.0 / 3.0;
  for (const testsite::RequestRecord& record : log) {
    const double t = std::chrono::duration<double>(record.start_time - begin).count();
    if (t < 0 || t >= seconds) continue;
    ++r.requests;
    if (record.status == 429) {
      ++refused;
      continue;
    }
    if (record.status != 200) continue;
    const auto second = static_cast<size_t>(t);
    ++ok_per_second[second];
    const double latency_ms =
        std::chrono::duration<double, std::milli>(record.end_time - record.start_time).count();
    latency_sum[second] += latency_ms;
    ++latency_count[second];
    if (t >= third_start) {
      ++ok_last_third;
      last_third_latency.push_back(latency_ms / spec.latency_ms);
    }
  }
  r.ok_per_s = static_cast<double>(ok_last_third) / (seconds - third_start);
  r.share_429 = r.requests > 0 ? static_cast<double>(refused) / static_cast<double>(r.requests) : 0;
  if (spec.rate_limit > 0) {
    // The first second from which the 5 s mean stays >= 0.8 x limit.
    for (int s = seconds - 5; s >= 0; --s) {
      int sum = 0;
      for (int k = s; k < s + 5; ++k) sum += ok_per_second[static_cast<size_t>(k)];
      if (sum / 5.0 < 0.8 * spec.rate_limit) break;
      r.t80 = s;
    }
  }
  r.lat_p50 = Percentile(last_third_latency, 0.5);
  r.lat_p90 = Percentile(last_third_latency, 0.9);
  for (size_t s = static_cast<size_t>(third_start); s < latency_count.size(); ++s) {
    if (latency_count[s] == 0) continue;
    r.lat_max_1s = std::max(r.lat_max_1s, latency_sum[s] / latency_count[s] / spec.latency_ms);
  }
  return r;
}

bool Measure(const Setup& setup, const RunSpec& run, std::vector<HostResult>* results,
             std::vector<double>* final_delay_ms) {
  std::vector<std::unique_ptr<testsite::TestSite>> sites;
  std::vector<std::string> seeds;
  for (const HostSpec& spec : kHosts) {
    testsite::SiteOptions options;
    options.pages = 1'000'000;
    options.links_per_page = 8;
    options.page_bytes = 1024;
    options.latency_ms = spec.latency_ms;
    options.rate_limit = spec.rate_limit;
    options.rate_limit_retry_after = setup.retry_after ? 1 : -1;
    options.load_capacity = spec.load_capacity;
    options.threads = 8;
    options.seed = static_cast<uint64_t>(seeds.size() + 1);
    auto site = testsite::TestSite::Start(options);
    if (!site.ok()) {
      std::fprintf(stderr, "testsite: %s\n", std::string(site.status().message()).c_str());
      return false;
    }
    seeds.push_back((*site)->RootUrl());
    sites.push_back(std::move(*site));
  }
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("adaptive-bench-" + std::to_string(getpid()));
  std::filesystem::remove_all(out);
  crawler::CrawlOptions options;
  options.delay_s = run.delay_s;
  options.adaptive_delay = run.adaptive;
  options.per_host = 4;
  options.connections = 16;
  options.robots = false;
  options.quiet = true;
  options.retries = 0;  // a 429 is not retried: each request is the crawler's choice
  options.expected = 1'000'000;
  options.out_dir = out.string();
  auto crawl = crawler::Crawler::Create(options, seeds);
  if (!crawl.ok()) {
    std::fprintf(stderr, "crawl: %s\n", std::string(crawl.status().message()).c_str());
    return false;
  }
  const Clock::time_point begin = Clock::now();
  absl::StatusOr<crawler::CrawlSummary> summary;
  std::thread runner([&] { summary = (*crawl)->Run(); });
  std::this_thread::sleep_until(begin + std::chrono::seconds(setup.seconds));
  (*crawl)->RequestStop();
  runner.join();
  for (size_t i = 0; i < sites.size(); ++i) {
    sites[i]->Stop();
    results->push_back(Analyse(kHosts[i], sites[i]->RequestLog(), begin, setup.seconds));
    double delay_ms = -1;
    if (summary.ok()) {
      for (const crawler::HostSummary& h : summary->hosts) {
        if (seeds[i].rfind(h.authority, 0) == 0) delay_ms = h.delay_ms;
      }
    }
    final_delay_ms->push_back(delay_ms);
  }
  std::filesystem::remove_all(out);
  if (!summary.ok()) {
    std::fprintf(stderr, "crawl: %s\n", std::string(summary.status().message()).c_str());
    return false;
  }
  return true;
}

bool ParseArgs(int argc, char** argv, Setup* setup) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--seconds" && i + 1 < argc) {
      setup->seconds = std::atoi(argv[++i]);
    } else if (flag == "--retry-after") {
      setup->retry_after = true;
    } else if (flag == "--floor-run") {
      setup->floor_run = true;
    } else {
      std::fprintf(stderr,
                   "usage: politeness-adaptive-bench [--seconds N] [--retry-after] "
                   "[--floor-run]\n");
      return false;
    }
  }
  return setup->seconds >= 10;
}

}  // namespace

int main(int argc, char** argv) {
  Setup setup;
  if (!ParseArgs(argc, argv, &setup)) return 2;
#ifndef NDEBUG
  std::printf("WARNING: built without optimization (%s); figures are not representative\n",
              CRAWL_BUILD_TYPE);
#endif
  std::printf("politeness-adaptive-bench: %d s per run, --per-host 4, robots off, 429s %s\n",
              setup.seconds, setup.retry_after ? "with Retry-After: 1" : "without Retry-After");
  std::printf(
      "hosts: limit-10 (token bucket 10/s, burst 5, 20 ms), limit-40 (40/s), "
      "load (40 ms x (1 + rate/10), no limit)\n");
  std::printf("targets (adaptive): ok/s >= 0.8 x limit, 429 <= 2%%; load: 1-s latency < 2x\n\n");
  std::vector<RunSpec> runs = {{"fixed --delay 0", 0, false},
                               {"fixed --delay 1s", 1, false},
                               {"adaptive --delay 0", 0, true}};
  if (setup.floor_run) runs.push_back({"adaptive --delay 10ms", 0.01, true});
  std::printf("%-22s %-9s %8s %8s %7s %6s %5s %8s %8s %8s %9s\n", "run", "host", "requests", "ok/s",
              "of lim", "429", "t80", "lat p50", "lat p90", "max 1s", "delay ms");
  for (const RunSpec& run : runs) {
    std::vector<HostResult> results;
    std::vector<double> delays;
    if (!Measure(setup, run, &results, &delays)) return 1;
    for (size_t i = 0; i < results.size(); ++i) {
      const HostSpec& spec = kHosts[i];
      const HostResult& r = results[i];
      char of_limit[16] = "-";
      char t80[16] = "-";
      if (spec.rate_limit > 0) {
        std::snprintf(of_limit, sizeof(of_limit), "%.2f", r.ok_per_s / spec.rate_limit);
        if (r.t80 >= 0) std::snprintf(t80, sizeof(t80), "%d", r.t80);
      }
      std::printf("%-22s %-9s %8lld %8.1f %7s %5.1f%% %5s %7.2fx %7.2fx %7.2fx %9.1f\n", run.name,
                  spec.name, static_cast<long long>(r.requests), r.ok_per_s, of_limit,
                  100 * r.share_429, t80, r.lat_p50, r.lat_p90, r.lat_max_1s, delays[i]);
    }
    std::fflush(stdout);
  }
  return 0;
}
