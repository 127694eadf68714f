// The `crawl` program: subcommand dispatch, logging setup, seeds, signals and
// the mapping from errors to exit codes (crawler/cli.h: 0 done, 1 runtime,
// 2 usage/config, 3 nothing fetched, 4 URLs lost).
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "app/crawl_stats.h"
#include "app/debug_commands.h"
#include "app/exit_status.h"
#include "app/log_setup.h"
#include "app/stop_signals.h"
#include "crawler/cli.h"
#include "crawler/crawl.h"
#include "crawler/crawl_state.h"
#include "crawler/robots_command.h"
#include "crawler/seeds.h"
#include "spdlog/spdlog.h"

namespace crawler {
namespace {

// The seeds file's URLs (when there is one), then the command line's.
absl::StatusOr<std::vector<std::string>> ReadSeeds(const CrawlOptions& options) {
  if (options.resume) return std::vector<std::string>{};  // the checkpoint has them
  std::vector<std::string> urls;
  if (!options.seeds_file.empty()) {
    absl::StatusOr<SeedsReport> seeds = ReadSeedsFile(options.seeds_file, options.strict);
    if (!seeds.ok()) return seeds.status();
    for (const std::string& problem : seeds->problems) spdlog::warn("{} (skipped)", problem);
    urls = std::move(seeds->urls);
    // Normalizing and queueing a million seeds takes seconds: say so first.
    constexpr size_t kManySeeds = 100'000;
    if (urls.size() >= kManySeeds) {
      spdlog::info("{} seeds read from {}; normalizing and queueing them", urls.size(),
                   options.seeds_file == "-" ? "stdin" : options.seeds_file);
    }
  }
  urls.insert(urls.end(), options.seed_urls.begin(), options.seed_urls.end());
  // --recrawl alone: the previous crawl's seeds (its depth-0 pages) set the
  // scope, found as the crawl queues its pages (Crawler::Impl::Init).
  if (urls.empty() && !options.recrawl.empty()) return urls;
  // --sitemap alone: the sitemaps give the URLs (Crawler::Impl::Init).
  if (urls.empty() && (!options.seeds_file.empty() || options.sitemap_urls.empty())) {
    const std::string file = options.seeds_file == "-" ? "stdin" : options.seeds_file;
    return absl::InvalidArgumentError(file + ": no valid seed URL");
  }
  return urls;
}

int ExitCodeOf(const absl::Status& status) {
  // DataLoss: a damaged checkpoint, which only --fresh (a usage choice) fixes.
  return absl::IsInvalidArgument(status) || absl::IsDataLoss(status) ? kExitUsageError
                                                                     : kExitRuntimeError;
}

void LogSummary(const CrawlSummary& s, const std::string& out_dir) {
  const int64_t errors = CountedErrors(s.errors_by_kind);
  const std::string seen =
      s.seen_estimate ? absl::StrCat("~", *s.seen_estimate) : std::string("? (filter saturated)");
  const std::string loss = FormatMeasuredLoss(s.fp_measured);
  spdlog::info(
      "done ({}): {} fetches ({} 2xx, {} redirects, {} errors) in {:.1f} s, {:.1f} pages/s; "
      "seen {}, filter {} bytes, p now {:.2g}{}{}",
      s.stop_reason, s.pages, s.pages_ok, s.redirects, errors, s.duration_s,
      s.duration_s > 0 ? s.pages / s.duration_s : 0.0, seen, s.filter_bytes, s.filter_fp_rate,
      loss.empty() ? "" : "; ", loss);
  if (s.recrawl) {
    spdlog::info(
        "recrawl: {} not modified, {} unchanged, {} changed, {} new, {} gone, {} carried; {} body "
        "bytes not downloaded",
        s.not_modified, s.unchanged, s.changed, s.new_pages, s.gone, s.carried, s.bytes_saved);
  }
  spdlog::info("output: {}/pages.jsonl, {}/summary.json", out_dir, out_dir);
}

int RunCrawlCommand(const CrawlOptions& options) {
  StopSignals signals;  // first: every thread started later inherits the mask
  absl::StatusOr<std::vector<std::string>> seeds = ReadSeeds(options);
  if (!seeds.ok()) {
    spdlog::error("{}", std::string(seeds.status().message()));
    return ExitCodeOf(seeds.status());
  }
  absl::StatusOr<std::unique_ptr<Crawler>> crawl = Crawler::Create(options, *seeds);
  if (!crawl.ok()) {
    spdlog::error("{}", std::string(crawl.status().message()));
    return ExitCodeOf(crawl.status());
  }
  Crawler* crawler = crawl->get();
  signals.OnFirstSignal([crawler] { crawler->RequestStop(); });
  absl::StatusOr<CrawlSummary> summary = crawler->Run();
  signals.OnFirstSignal(nullptr);
  if (!summary.ok()) {
    spdlog::error("{}", std::string(summary.status().message()));
    return kExitRuntimeError;
  }
  LogSummary(*summary, options.out_dir);
  const ExitStatus status =
      CrawlExitStatus(*summary, options.fp_rate, /*shared_frontier=*/!options.frontier.empty());
  // On stderr whatever the log level: a script's user needs the reason.
  if (status.code != kExitOk) {
    const std::string reason = absl::StrCat("crawl: ", status.reason, " (exit ", status.code, ")");
    if (options.log_format == "json") {
      std::cerr << JsonLogLine(absl::Now(), "error", reason) << "\n";
    } else {
      std::cerr << reason << "\n";
    }
  }
  return status.code;
}

}  // namespace

absl::StatusOr<CrawlSummary> RunCrawl(const CrawlOptions& options) {
  absl::StatusOr<std::vector<std::string>> seeds = ReadSeeds(options);
  if (!seeds.ok()) return seeds.status();
  absl::StatusOr<std::unique_ptr<Crawler>> crawl = Crawler::Create(options, *seeds);
  if (!crawl.ok()) return crawl.status();
  return (*crawl)->Run();
}

int CrawlProgramMain(int argc, const char* const* argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "robots") {
    // RunRobotsCommand takes its own name as argv[0].
    return RunRobotsCommand(argc - 1, argv + 1, std::cin, std::cout, std::cerr);
  }
  if (!args.empty() && (args[0] == "url" || args[0] == "links")) {
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    return args[0] == "url" ? UrlCommand(rest, std::cin, std::cout, std::cerr)
                            : LinksCommand(rest, std::cin, std::cout, std::cerr);
  }
  if (!args.empty() && args[0] == "completion") {
    if (args.size() != 2 || args[1] != "bash") {
      std::cerr << "crawl: usage: crawl completion bash\n";
      return kExitUsageError;
    }
    std::cout << BashCompletion();
    return kExitOk;
  }
  absl::StatusOr<ParsedCommand> command = ParseCrawlCommand(argc - 1, argv + 1);
  if (!command.ok()) {
    std::cerr << "crawl: " << command.status().message() << "\n"
              << "Try 'crawl --help'.\n";
    return kExitUsageError;
  }
  if (command->kind != ParsedCommand::kRun) {
    std::cout << command->text;
    return kExitOk;
  }
  if (command->options.resume && !command->options.seed_urls.empty()) {
    // A resumed crawl's seeds are its checkpoint's; a URL given with
    // --resume used to be ignored without a word.
    std::cerr << "crawl: --resume continues the checkpoint's crawl with its own seeds; "
              << command->options.seed_urls.front()
              << " would not be crawled: drop the URL, or start a new crawl (another --out, "
                 "or --fresh)\n";
    return kExitUsageError;
  }
  if (command->options.resume) {  // stored options, flags on top, conflicts refused
    absl::StatusOr<CrawlOptions> resumed =
        ResumeOptions(argc - 1, argv + 1, command->options.state_dir);
    if (!resumed.ok()) {
      std::cerr << "crawl: " << resumed.status().message() << "\n";
      return ExitCodeOf(resumed.status());
    }
    command->options = *std::move(resumed);
  }
  // Logs go to stderr (stdout is for the subcommands' output).
  SetUpLogging(command->options.quiet && command->options.log_level == "info"
                   ? "warn"
                   : command->options.log_level,
               LogStyleOf(command->options, std::getenv("NO_COLOR")));
  return RunCrawlCommand(command->options);
}

}  // namespace crawler
