// The --help and --version texts; the flag list comes from the option table,
// so the defaults printed are the defaults used.
#include <algorithm>
#include <string>

#include "config/option_table.h"
#include "config/strings.h"
#include "crawler/cli.h"

namespace crawler {

using config_internal::Append;
using config_internal::Cat;
namespace {

using config_internal::OptionSpec;

constexpr size_t kFlagColumn = 34;

std::string FlagLine(std::string_view flag, std::string_view metavar, std::string_view help) {
  const char letter = config_internal::ShortLetterOf(flag);
  std::string line =
      letter != 0 ? Cat("  -", std::string(1, letter), ", --", flag) : Cat("  --", flag);
  if (!metavar.empty()) Append(&line, " ", metavar);
  line.resize(std::max(line.size() + 1, kFlagColumn), ' ');
  Append(&line, help, "\n");
  return line;
}

std::string DefaultNote(const OptionSpec& spec) {
  if (spec.kind == config_internal::Kind::kSwitch) return "";
  std::string shown = config_internal::FormatOptionValue(spec, spec.get(CrawlOptions{}));
  if (shown.empty()) return "";
  return Cat(" [", shown, "]");
}

}  // namespace

std::string HelpText() {
  std::string text =
      "Usage: crawl [options] URL...\n"
      "  or:  crawl --seeds FILE [--expected N] [options] [URL...]\n"
      "  or:  crawl --resume --out DIR [options]\n"
      "  or:  crawl url|links|robots|completion ...\n"
      "\n"
      "Crawls the web from the start URLs (arguments, or FILE, '-' for stdin),\n"
      "breadth first, remembering the URLs it has seen in a Bloom filter sized\n"
      "for N URLs at the false-positive rate RATE.\n"
      "\n"
      "Politely by default: one request per second per host (--delay 1s), at most\n"
      "2 at once (--per-host); 1,000 pages of one site take about 17 minutes. On a\n"
      "site you own: --delay 0 --per-host 8.\n"
      "\n"
      "While URLs are queued and nothing is in flight, the crawl waits for a timer\n"
      "it names (a host's delay, Retry-After or back-off, a retry, robots.txt's\n"
      "next try): logged when 1 s or longer, and shown in the progress line.\n"
      "\n"
      "--resume continues the crawl in DIR with its own seeds and options (URLs\n"
      "given with it are refused); a new crawl into an --out that holds an earlier\n"
      "crawl's pages.jsonl needs --fresh.\n"
      "\n"
      "Commands:\n"
      "  url BASE HREF                   the URL a crawl would queue for HREF on BASE\n"
      "  links [options] [FILE]          the links of an HTML page, one per line\n"
      "  robots [options] URL...         allow or disallow, per URL, by a robots.txt\n"
      "  completion bash                 the bash completion script\n"
      "\n"
      "Options (defaults in brackets; all of them also in config/crawl.toml, installed\n"
      "as share/crawl/crawl.toml):\n";
  Append(&text, FlagLine("config", "FILE", "read defaults from this TOML file; flags win"));
  std::string_view section;
  for (const OptionSpec& spec : config_internal::OptionTable()) {
    if (spec.section != section) {
      section = spec.section;
      Append(&text, "\n [", section, "]\n");
    }
    Append(&text, FlagLine(spec.flag, spec.metavar, Cat(spec.help, DefaultNote(spec))));
  }
  Append(&text, "\n", FlagLine("help", "", "print this help and exit"),
         FlagLine("version", "", "print the version and exit"),
         "  -d                              --log-level debug (as wget2's -d)\n",
         "\nCounts accept 1000000, 1_000_000 and 1e6; sizes 1048576, 64MiB, 10MB;\n"
         "durations 200ms, 1.5 (seconds), 1s, 2m.\n"
         "\nRelative paths (seeds, out, ...) are relative to the working directory.\n"
         "\nExit status:\n"
         "  0  the crawl finished and fetched something\n"
         "  1  runtime failure (output, checkpoint or frontier error; a stalled crawl)\n"
         "  2  usage or configuration error\n"
         "  3  the crawl ended but no URL could be fetched (every seed dead: connection\n"
         "     refused, DNS failure, timeout); pages.jsonl has the records\n"
         "  4  more than 1% (or 2x --fp-rate) of the new URLs were wrongly dropped as\n"
         "     seen, by the measured rate's 95% interval: raise --expected\n"
         "\nEnvironment:\n"
         "  NO_COLOR     set and not empty: no colors in the log\n"
         "  http_proxy, https_proxy, all_proxy, no_proxy\n"
         "               proxies, as for curl and wget (unless --no-proxy-env or --proxy)\n");
  return text;
}

std::string VersionText() { return Cat("crawl ", CRAWL_VERSION, "\n"); }

}  // namespace crawler
