// BashCompletion: the bash completion script, written from the option table
// so that a new flag completes (with its values) without an edit here.
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "config/option_table.h"
#include "config/strings.h"
#include "crawler/cli.h"

namespace crawler {

using config_internal::Append;
using config_internal::Cat;
namespace {

using config_internal::Kind;
using config_internal::OptionSpec;

// "--flag" and, when it has one, its letter: "--seeds|-i".
std::string CasePattern(std::string_view flag) {
  std::string pattern = Cat("--", flag);
  for (const config_internal::ShortOption& option : config_internal::ShortOptions()) {
    if (option.flag == flag && option.value.empty())
      Append(&pattern, "|-", std::string(1, option.letter));
  }
  return pattern;
}

// What bash offers after the flag: fixed words, files, directories, or
// nothing (a number or free text).
std::string ValueCompletion(const OptionSpec& spec) {
  std::string words;
  if (spec.kind == Kind::kOnOff) words = "on off";
  if (spec.kind == Kind::kScope) words = "host domain any";
  if (spec.kind == Kind::kChoice) {
    words = absl::StrJoin(absl::StrSplit(config_internal::Absl(spec.choices), '|'), " ");
  }
  if (!words.empty()) return Cat("COMPREPLY=($(compgen -W \"", words, "\" -- \"$cur\"))");
  if (spec.metavar == "FILE") return "COMPREPLY=($(compgen -f -- \"$cur\"))";
  if (spec.metavar == "DIR") return "COMPREPLY=($(compgen -d -- \"$cur\"))";
  return "COMPREPLY=()";
}

}  // namespace

std::string BashCompletion() {
  std::string script =
      "# bash completion for crawl; generated from its option table by\n"
      "# `crawl completion bash` (installed as share/bash-completion/completions/crawl).\n"
      "_crawl() {\n"
      "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
      "  case \"$prev\" in\n"
      "    --config) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
  std::vector<std::string> flags = {"--config", "--help", "--version"};
  for (const OptionSpec& spec : config_internal::OptionTable()) {
    flags.push_back(Cat("--", spec.flag));
    if (spec.kind == Kind::kSwitch) continue;  // takes no value
    Append(&script, "    ", CasePattern(spec.flag), ") ", ValueCompletion(spec), "; return ;;\n");
  }
  Append(&script,
         "  esac\n"
         "  if [[ \"$cur\" == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"",
         absl::StrJoin(flags, " "),
         "\" -- \"$cur\"))\n"
         "  elif [[ $COMP_CWORD -eq 1 ]]; then\n"
         "    COMPREPLY=($(compgen -W \"url links robots completion\" -- \"$cur\"))\n"
         "  fi\n"
         "}\n"
         "complete -F _crawl crawl\n");
  return script;
}

}  // namespace crawler
