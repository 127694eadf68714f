// ResumeOptions: the command line of `crawl --resume` over the stored options.
// Parsing on top of the stored values (rather than comparing with defaults)
// means an option not given keeps its value, and one given with the same
// value is no conflict.
#include <algorithm>
#include <array>
#include <filesystem>
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
// TLS files and --resolve say how to reach the servers, not what to crawl:
// a certificate renewed or an address moved between runs is no conflict.
constexpr std::array<std::string_view, 22> kMayChange = {"log-level",
                                                         "quiet",
                                                         "log-format",
                                                         "metrics",
                                                         "max-pages",
                                                         "threads",
                                                         "fetch-threads",
                                                         "connections",
                                                         "checkpoint-every",
                                                         "queue-memory",
                                                         "spill-dir",
                                                         "timeout",
                                                         "connect-timeout",
                                                         "resume",
                                                         "fresh",
                                                         "state",
                                                         "out",
                                                         "ca-certificate",
                                                         "no-check-certificate",
                                                         "certificate",
                                                         "private-key",
                                                         "resolve"};

bool MayChange(std::string_view flag) {
  return std::find(kMayChange.begin(), kMayChange.end(), flag) != kMayChange.end();
}

// A moved crawl directory resumes where it is now: the
// stored paths name where it was. The state directory is the one opened;
// --out and --spill-dir that sat in their default places beside it
// (OUT/state, OUT/spill) follow it unless given again.
void FollowMovedState(const CrawlOptions& stored, const std::string& state_dir,
                      CrawlOptions* options) {
  namespace fs = std::filesystem;
  options->state_dir = state_dir;
  const fs::path stored_out(stored.out_dir);
  if (fs::path(stored.state_dir) != stored_out / "state") return;
  const fs::path out = fs::path(state_dir).parent_path();
  if (options->out_dir == stored.out_dir) options->out_dir = out.string();
  if (options->spill_dir == stored.spill_dir &&
      fs::path(stored.spill_dir) == stored_out / "spill") {
    options->spill_dir = (out / "spill").string();
  }
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
  FollowMovedState(stored, state_dir, &command->options);
  return command->options;
}

}  // namespace crawler
