// politeness-bench: does per-host politeness leave the crawl fast when the
// work is spread over many hosts? 100 testsite hosts (ports) on loopback with
// --latency-ms 50, crawled with --delay 0 --per-host 4: at most 4 requests in
// flight per host, each taking >= 50 ms, so the bound is
//   100 hosts x 4 connections / 0.05 s = 8000 pages/s.
// On a small machine the CPU (parsing, the servers themselves) caps the rate
// lower; the same crawl with latency 0 measures that CPU-bound rate. The
// target is >= 0.7 of min(bound, CPU-bound rate).
//
//   politeness-bench [--hosts 100] [--pages 100] [--latency-ms 50]
//                    [--per-host 4] [--connections 400]
//
// The servers run in this process and share its cores with the crawler, as
// they would not in production: the CPU-bound rate is thus a floor.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "crawler/crawl.h"
#include "crawler/options.h"
#include "testsite/test_site.h"

namespace {

struct Setup {
  int hosts = 100;
  int pages = 100;
  int latency_ms = 50;
  int per_host = 4;
  int connections = 400;
};

bool ParseArgs(int argc, char** argv, Setup* setup) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int value = std::atoi(argv[i + 1]);
    if (flag == "--hosts") {
      setup->hosts = value;
    } else if (flag == "--pages") {
      setup->pages = value;
    } else if (flag == "--latency-ms") {
      setup->latency_ms = value;
    } else if (flag == "--per-host") {
      setup->per_host = value;
    } else if (flag == "--connections") {
      setup->connections = value;
    } else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return false;
    }
  }
  return argc % 2 == 1;
}

struct Run {
  double pages_per_s = 0;
  long pages = 0;
  double seconds = 0;
};

// One crawl of `setup.hosts` fresh sites, each with `latency_ms`.
bool Measure(const Setup& setup, int latency_ms, Run* run) {
  std::vector<std::unique_ptr<testsite::TestSite>> sites;
  std::vector<std::string> seeds;
  for (int i = 0; i < setup.hosts; ++i) {
    testsite::SiteOptions options;
    options.pages = static_cast<uint64_t>(setup.pages);
    options.latency_ms = latency_ms;
    options.threads = setup.per_host + 2;
    options.keep_request_log = false;
    options.seed = static_cast<uint64_t>(i + 1);
    auto site = testsite::TestSite::Start(options);
    if (!site.ok()) {
      std::fprintf(stderr, "testsite: %s\n", std::string(site.status().message()).c_str());
      return false;
    }
    seeds.push_back((*site)->RootUrl());
    sites.push_back(std::move(*site));
  }
  crawler::CrawlOptions options;
  options.delay_s = 0;
  options.per_host = setup.per_host;
  options.connections = setup.connections;
  options.robots = false;  // robots.txt fetches are not pages: keep the count clean
  options.quiet = true;
  options.expected = static_cast<uint64_t>(setup.hosts) * static_cast<uint64_t>(setup.pages) * 2;
  options.out_dir = "/tmp/politeness-bench-out";
  auto crawler = crawler::Crawler::Create(options, seeds);
  if (!crawler.ok()) {
    std::fprintf(stderr, "crawl: %s\n", std::string(crawler.status().message()).c_str());
    return false;
  }
  auto summary = (*crawler)->Run();
  if (!summary.ok()) {
    std::fprintf(stderr, "crawl: %s\n", std::string(summary.status().message()).c_str());
    return false;
  }
  run->pages = static_cast<long>(summary->pages);
  run->seconds = summary->duration_s;
  run->pages_per_s = summary->duration_s > 0 ? summary->pages / summary->duration_s : 0;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Setup setup;
  if (!ParseArgs(argc, argv, &setup)) return 2;
#ifndef NDEBUG
  std::printf("WARNING: built without optimization (%s); figures are not representative\n",
              CRAWL_BUILD_TYPE);
#endif
  const double bound = setup.hosts * setup.per_host / (setup.latency_ms / 1000.0);
  std::printf("politeness-bench: %d hosts x %d pages, --delay 0 --per-host %d --connections %d\n",
              setup.hosts, setup.pages, setup.per_host, setup.connections);
  std::printf("bound: %d hosts x %d / %.3f s = %.0f pages/s\n", setup.hosts, setup.per_host,
              setup.latency_ms / 1000.0, bound);
  Run cpu, polite;
  if (!Measure(setup, 0, &cpu) || !Measure(setup, setup.latency_ms, &polite)) return 1;
  const double target = std::min(bound, cpu.pages_per_s);
  std::printf("\n%-22s %8s %8s %10s\n", "run", "pages", "seconds", "pages/s");
  std::printf("%-22s %8ld %8.2f %10.0f\n", "latency 0 (CPU-bound)", cpu.pages, cpu.seconds,
              cpu.pages_per_s);
  std::printf("%-22s %8ld %8.2f %10.0f\n",
              ("latency " + std::to_string(setup.latency_ms) + " ms").c_str(), polite.pages,
              polite.seconds, polite.pages_per_s);
  std::printf("\nratio to bound (%.0f):           %.2f\n", bound, polite.pages_per_s / bound);
  std::printf("ratio to CPU-bound rate (%.0f):  %.2f\n", cpu.pages_per_s,
              polite.pages_per_s / cpu.pages_per_s);
  std::printf("ratio to min of both (target >= 0.7): %.2f\n", polite.pages_per_s / target);
  return 0;
}
