// ResumeOptions: the command line of `crawl --resume` over the stored options.
// Parsing on top of the stored values (rather than comparing with defaults)
// means an option not given keeps its value, and one given with the same
// value is no conflict.
#include <algorithm>
#include <array>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "crawler/cli.h"
#include "crawler/crawl_state.h"
#include "crawler/options_text.h"

namespace crawler {
namespace {

// Options that change how the crawl runs, not what it crawls; plus the
// --resume/--fresh/--state switches themselves.
constexpr std::array<std::string_view, 14> kMayChange = {
    "log-level",     "quiet",       "max-pages",        "threads",
    "fetch-threads", "connections", "checkpoint-every", "queue-memory",
    "spill-dir",     "timeout",     "connect-timeout",  "resume",
    "fresh",         "state"};

bool MayChange(std::string_view flag) {
  return std::find(kMayChange.begin(), kMayChange.end(), flag) != kMayChange.end();
}

}  // namespace

absl::StatusOr<CrawlOptions> ResumeOptions(int argc, const char* const* argv,
                                           const std::string& state_dir) {
  absl::StatusOr<std::unique_ptr<CrawlStateDir>> state = CrawlStateDir::Open(state_dir);
  if (!state.ok()) return state.status();
  const CrawlOptions& stored = (*state)->loaded().options;
  absl::StatusOr<ParsedCommand> command = ParseCrawlCommand(argc, argv, stored);
  if (!command.ok()) return command.status();
  std::vector<std::string> conflicts;
  for (const OptionDifference& d : DiffCrawlOptions(stored, command->options)) {
    if (MayChange(d.flag)) continue;
    conflicts.push_back(absl::StrCat("--", d.flag, " is '", d.second,
                                     "' but the checkpoint's crawl ran with '", d.first, "'"));
  }
  if (!conflicts.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--resume: ", absl::StrJoin(conflicts, "; "),
        " (a resumed crawl keeps its options; drop the flag, or --fresh to start over)"));
  }
  return command->options;
}

}  // namespace crawler
