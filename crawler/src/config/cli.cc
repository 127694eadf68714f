// ParseCrawlCommand: argv -> CrawlOptions. Two passes, so that flags override
// the --config file whatever their order: first collect (flag, text) pairs
// and the config path, then load the file, then apply the flags in order.
#include "crawler/cli.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "config/option_table.h"
#include "config/seed_check.h"
#include "config/strings.h"

namespace crawler {

using config_internal::Append;
using config_internal::Cat;
namespace {

using config_internal::Kind;
using config_internal::OptionSpec;
using config_internal::OptionValue;

struct FlagUse {
  const OptionSpec* spec;
  std::string text;
};

struct CommandLine {
  std::string config_file;
  std::vector<FlagUse> flags;
  std::vector<std::string> seed_urls;  // the arguments that are not options
};

bool TakesNoValue(const OptionSpec& spec) { return spec.kind == Kind::kSwitch; }

absl::Status Usage(std::string_view message) {
  return absl::InvalidArgumentError(Cat(message, " (see --help)"));
}

// Splits "--name=value" into name and value; `has_value` says if '=' was there.
std::string_view SplitFlag(std::string_view arg, std::string_view* value, bool* has_value) {
  std::string_view name = arg.substr(2);
  size_t equals = name.find('=');
  *has_value = equals != std::string_view::npos;
  if (*has_value) {
    *value = name.substr(equals + 1);
    name = name.substr(0, equals);
  }
  return name;
}

// "-U VALUE" / "-UVALUE" -> "--user-agent=VALUE"; "-q" -> "--quiet"; "-d" ->
// "--log-level=debug". `i` advances past a value taken from the next argument.
absl::StatusOr<std::string> ExpandShortOption(int argc, const char* const* argv, int* i) {
  const std::string_view arg = argv[*i];
  for (const config_internal::ShortOption& option : config_internal::ShortOptions()) {
    const OptionSpec* spec = config_internal::FindByFlag(option.flag);
    if (arg[1] != option.letter || spec == nullptr) continue;  // -h, -V: answered before
    if (!option.value.empty() || TakesNoValue(*spec)) {
      if (arg.size() != 2) break;  // no bundling (-qd): say which letter is unknown
      return option.value.empty() ? Cat("--", option.flag)
                                  : Cat("--", option.flag, "=", option.value);
    }
    if (arg.size() > 2) return Cat("--", option.flag, "=", arg.substr(2));
    if (*i + 1 == argc) {
      return Usage(
          Cat("-", arg.substr(1, 1), " (--", option.flag, "): missing value ", spec->metavar));
    }
    return Cat("--", option.flag, "=", argv[++*i]);
  }
  return Usage(Cat("unknown option '", arg, "'"));
}

// A positional argument: a start URL.
absl::Status AddSeedUrl(std::string_view arg, CommandLine& line) {
  absl::Status valid = config_internal::CheckSeedUrl(arg);
  if (!valid.ok()) {
    return Usage(Cat("unexpected argument '", arg,
                     "': neither an option (--name) nor an http(s) URL to start from"));
  }
  line.seed_urls.emplace_back(arg);
  return absl::OkStatus();
}

absl::StatusOr<CommandLine> Tokenize(int argc, const char* const* argv) {
  CommandLine line;
  bool options_ended = false;  // after "--", every argument is a URL
  for (int i = 0; i < argc; ++i) {
    std::string expanded = argv[i];
    if (options_ended || expanded == "-" || !expanded.starts_with('-')) {
      absl::Status added = AddSeedUrl(expanded, line);
      if (!added.ok()) return added;
      continue;
    }
    if (expanded == "--") {
      options_ended = true;
      continue;
    }
    if (!expanded.starts_with("--")) {
      absl::StatusOr<std::string> long_form = ExpandShortOption(argc, argv, &i);
      if (!long_form.ok()) return long_form.status();
      expanded = *std::move(long_form);
    }
    std::string_view arg = expanded;
    std::string_view value;
    bool has_value = false;
    std::string_view name = SplitFlag(arg, &value, &has_value);
    const OptionSpec* spec = config_internal::FindByFlag(name);
    if (spec == nullptr && name != "config") {
      return Usage(Cat("unknown option '--", name, "'"));
    }
    bool switch_flag = spec != nullptr && TakesNoValue(*spec);
    if (!has_value && !switch_flag) {
      if (i + 1 == argc) {
        std::string_view metavar = spec == nullptr ? "FILE" : spec->metavar;
        return Usage(Cat("--", name, ": missing value ", metavar));
      }
      value = argv[++i];
      has_value = true;
    }
    if (spec == nullptr) {
      line.config_file = std::string(value);
    } else {
      line.flags.push_back({spec, has_value ? std::string(value) : "true"});
    }
  }
  return line;
}

absl::Status ApplyFlags(const std::vector<FlagUse>& flags, CrawlOptions& options) {
  std::vector<const OptionSpec*> lists_replaced;
  for (const FlagUse& use : flags) {
    absl::StatusOr<OptionValue> value = config_internal::ParseOptionText(*use.spec, use.text);
    if (!value.ok()) {
      return absl::InvalidArgumentError(Cat("--", use.spec->flag, ": ", value.status().message()));
    }
    if (use.spec->kind == Kind::kTextList) {
      // The command line's list replaces the file's; repeated flags append.
      auto previous = std::get<std::vector<std::string>>(use.spec->get(options));
      if (std::find(lists_replaced.begin(), lists_replaced.end(), use.spec) ==
          lists_replaced.end()) {
        previous.clear();
        lists_replaced.push_back(use.spec);
      }
      for (std::string& item : std::get<std::vector<std::string>>(*value)) {
        previous.push_back(std::move(item));
      }
      *value = std::move(previous);
    }
    use.spec->set(options, *value);
  }
  return absl::OkStatus();
}

void ResolveDirectories(CrawlOptions& options) {
  std::filesystem::path out(options.out_dir);
  if (options.spill_dir.empty()) options.spill_dir = (out / "spill").string();
  if (options.state_dir.empty()) options.state_dir = (out / "state").string();
}

bool Asks(int argc, const char* const* argv, std::string_view long_name,
          std::string_view short_name) {
  for (int i = 0; i < argc; ++i) {
    if (argv[i] == long_name || argv[i] == short_name) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<ParsedCommand> ParseCrawlCommand(int argc, const char* const* argv) {
  return ParseCrawlCommand(argc, argv, CrawlOptions{});
}

absl::StatusOr<ParsedCommand> ParseCrawlCommand(int argc, const char* const* argv,
                                                const CrawlOptions& base) {
  ParsedCommand command;
  command.options = base;
  if (Asks(argc, argv, "--help", "-h")) {
    command.kind = ParsedCommand::kHelp;
    command.text = HelpText();
    return command;
  }
  if (Asks(argc, argv, "--version", "-V")) {
    command.kind = ParsedCommand::kVersion;
    command.text = VersionText();
    return command;
  }
  absl::StatusOr<CommandLine> line = Tokenize(argc, argv);
  if (!line.ok()) return line.status();
  if (!line->config_file.empty()) {
    absl::StatusOr<CrawlOptions> loaded = LoadConfigFile(line->config_file, command.options);
    if (!loaded.ok()) return loaded.status();
    command.options = *std::move(loaded);
  }
  absl::Status applied = ApplyFlags(line->flags, command.options);
  if (!applied.ok()) return applied;
  if (!line->seed_urls.empty()) command.options.seed_urls = std::move(line->seed_urls);
  absl::Status valid = ValidateCrawlOptions(command.options);
  if (!valid.ok()) return valid;
  ResolveDirectories(command.options);
  return command;
}

}  // namespace crawler
