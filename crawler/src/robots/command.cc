// `crawl robots`: argument parsing and the allow/disallow listing.
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "crawler/robots.h"
#include "crawler/robots_command.h"
#include "crawler/url.h"

namespace crawler {
namespace {

constexpr char kUsage[] =
    "usage: crawl robots --file ROBOTS_TXT [--agent NAME] URL...\n"
    "       crawl robots --file ROBOTS_TXT [--agent NAME] --batch   (URLs on stdin)\n"
    "Prints allow<TAB>URL or disallow<TAB>URL for each URL (RFC 9309).\n";

struct Arguments {
  std::string file;
  std::string agent = "crawl";
  bool batch = false;
  bool help = false;
  std::vector<std::string> urls;
};

// Reads "--name VALUE" or "--name=VALUE" at argv[*i]; nullopt if argv[*i] is
// not that option. An option missing its value yields an error message.
std::optional<std::string> OptionValue(std::string_view name, int argc, const char* const* argv,
                                       int* i, std::string* error) {
  std::string_view arg = argv[*i];
  if (arg == name) {
    if (*i + 1 >= argc) {
      *error = std::string(name) + " needs a value";
      return std::string();
    }
    return std::string(argv[++*i]);
  }
  if (arg.size() > name.size() && arg.substr(0, name.size()) == name && arg[name.size()] == '=') {
    return std::string(arg.substr(name.size() + 1));
  }
  return std::nullopt;
}

// Fills `args`; returns an error message, empty on success.
std::string ParseArguments(int argc, const char* const* argv, Arguments* args) {
  std::string error;
  bool options_done = false;
  for (int i = 1; i < argc && error.empty(); ++i) {
    const std::string_view arg = argv[i];
    if (options_done || arg.empty() || arg[0] != '-' || arg == "-") {
      args->urls.emplace_back(arg);
    } else if (arg == "--") {
      options_done = true;
    } else if (arg == "--batch") {
      args->batch = true;
    } else if (arg == "-h" || arg == "--help") {
      args->help = true;
    } else if (std::optional<std::string> file = OptionValue("--file", argc, argv, &i, &error)) {
      args->file = *file;
    } else if (std::optional<std::string> agent = OptionValue("--agent", argc, argv, &i, &error)) {
      args->agent = *agent;
    } else {
      error = "unknown option '" + std::string(arg) + "'";
    }
  }
  if (!error.empty() || args->help) return error;
  if (args->file.empty()) return "--file is required";
  if (RobotsProductToken(args->agent).empty()) {
    return "--agent '" + args->agent + "' has no product token ([A-Za-z_-]+)";
  }
  if (args->batch && !args->urls.empty()) return "--batch reads URLs from stdin; give no URLs";
  if (!args->batch && args->urls.empty()) return "no URLs given (or use --batch)";
  return "";
}

// False if `path` is no readable file. libstdc++ throws from a stream
// iterator when a read fails (a directory opens fine on Linux), so the
// directory is refused first and the copy goes through operator<<, which
// turns a read error into a state bit.
bool ReadWholeFile(const std::string& path, std::string* body) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return false;
  std::ifstream file(path, std::ios::binary);
  if (!file.is_open()) return false;
  std::ostringstream copy;
  copy << file.rdbuf();  // sets failbit on `copy` for an empty file too: not an error
  if (file.bad()) return false;
  *body = std::move(copy).str();
  return true;
}

std::string_view TrimLine(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
    line.remove_suffix(1);
  }
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  return line;
}

// Prints the verdict for one URL; false if it does not parse.
bool Answer(const RobotsRules& rules, std::string_view input, std::ostream& out,
            std::ostream& err) {
  absl::StatusOr<Url> url = Url::Parse(input);
  if (!url.ok()) {
    err << "crawl robots: '" << input << "' is not a URL: " << url.status().message() << "\n";
    return false;
  }
  out << (rules.IsAllowed(*url) ? "allow\t" : "disallow\t") << input << "\n";
  return true;
}

}  // namespace

int RunRobotsCommand(int argc, const char* const* argv, std::istream& in, std::ostream& out,
                     std::ostream& err) {
  Arguments args;
  const std::string error = ParseArguments(argc, argv, &args);
  if (args.help && error.empty()) {
    out << kUsage;
    return 0;
  }
  if (!error.empty()) {
    err << "crawl robots: " << error << "\n" << kUsage;
    return 2;
  }
  std::string body;
  if (!ReadWholeFile(args.file, &body)) {
    err << "crawl robots: cannot read '" << args.file << "'\n";
    return 1;
  }
  const RobotsRules rules = RobotsRules::Parse(body, args.agent);
  bool all_parsed = true;
  if (args.batch) {
    std::string line;
    while (std::getline(in, line)) {
      const std::string_view url = TrimLine(line);
      if (!url.empty()) all_parsed &= Answer(rules, url, out, err);
    }
  } else {
    for (const std::string& url : args.urls) all_parsed &= Answer(rules, url, out, err);
  }
  return all_parsed ? 0 : 1;
}

}  // namespace crawler
