// The `crawl` command line: argv in, a validated CrawlOptions (or help text)
// out. Layers, later wins: built-in defaults, then the --config file, then the
// other flags, whatever their order on the line.
//
//   absl::StatusOr<crawler::ParsedCommand> command =
//       crawler::ParseCrawlCommand(argc - 1, argv + 1);   // without argv[0]
//   if (!command.ok()) { std::cerr << command.status().message() << "\n"; return 2; }
//   if (command->kind != crawler::ParsedCommand::kRun) { std::cout << command->text; return 0; }
//   Run(command->options);
//
// Flags take "--name VALUE" or "--name=VALUE"; boolean flags (--quiet,
// --strict, --ignore-nofollow, --resume, --fresh) take no value, or =true/=false.
// Short forms, only where wget2 means the same: -h (--help), -V (--version),
// -q (--quiet), -d (--log-level debug), -i FILE (--seeds; "-i -" reads
// stdin), -U TEXT (--user-agent), -w DURATION (--delay), -P DIR (--out);
// "-U TEXT" or "-UTEXT", no bundling. A flag given twice: the last wins,
// except --allow/--deny, which accumulate (and replace the config file's
// list rather than extend it). Arguments that are not options are start
// URLs (`crawl https://example.org/`, with or without --seeds; "--" ends
// the options); one that is not an http(s) URL is a usage error.
//
// Threading: pure functions, safe from any thread.
#ifndef CRAWLER_CLI_H_
#define CRAWLER_CLI_H_

#include <string>

#include "absl/status/statusor.h"
#include "crawler/options.h"

namespace crawler {

// Exit codes of the `crawl` program (docs/fp-rate.md has the table; a script
// can tell each case apart).
inline constexpr int kExitOk = 0;            // crawl finished and fetched something
inline constexpr int kExitRuntimeError = 1;  // runtime failure
inline constexpr int kExitUsageError = 2;    // usage or configuration error
// The crawl ended but no URL got an HTTP response: every seed dead
// (connection refused, DNS failure, timeout...). pages.jsonl holds the
// records; stderr says why.
inline constexpr int kExitNothingFetched = 3;
// The crawl finished, but the Sieve's measured loss says more than
// kLostUrlsThreshold of the new URLs were wrongly dropped as seen (the lower
// end of its 95% interval is above it): --expected was too small for
// --overflow warn, or --filter-memory-max capped the filter.
inline constexpr int kExitUrlsLost = 4;
// The share of new URLs (accepted + wrongly dropped) past which a crawl exits
// with kExitUrlsLost: 1%, or twice --fp-rate when that is larger (a filter
// sized for p loses about p by design).
inline constexpr double kLostUrlsThreshold = 0.01;

struct ParsedCommand {
  enum Kind { kRun, kHelp, kVersion };
  Kind kind = kRun;
  // For kRun: the merged, validated options, with spill_dir and state_dir
  // resolved against out_dir when they were left empty.
  CrawlOptions options;
  // For kHelp / kVersion: what to print on stdout (ends with a newline).
  std::string text;
};

// Parses the arguments AFTER the program name (argv[0] of main is not passed).
// Errors are InvalidArgumentError naming the flag, or the key and the file,
// e.g. "--fp-rate: 1.5 is not in (0, 1)"; the caller exits with
// kExitUsageError. --help / -h and --version win over everything else.
absl::StatusOr<ParsedCommand> ParseCrawlCommand(int argc, const char* const* argv);
// The same with `base` in place of the built-in defaults: a resumed crawl
// parses its command line on top of the options stored in its checkpoint.
absl::StatusOr<ParsedCommand> ParseCrawlCommand(int argc, const char* const* argv,
                                                const CrawlOptions& base);

// The --help text: usage, every flag with its default, exit codes.
std::string HelpText();

// "crawl <version>".
std::string VersionText();

// The bash completion script (`crawl completion bash`): every flag, and the
// values of the flags that take words (on|off, choices), files or
// directories. The build installs it as share/bash-completion/completions/crawl.
std::string BashCompletion();

}  // namespace crawler

#endif  // CRAWLER_CLI_H_
