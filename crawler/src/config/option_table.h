// The option table: one row per CrawlOptions field, naming its TOML key, its
// flag, its kind and its allowed range. The config file reader, the command
// line parser and the help text all walk this one table, so a new option is
// one new row and the three cannot drift apart.
// Threading: the table is immutable; all functions are pure.
#ifndef CRAWLER_SRC_CONFIG_OPTION_TABLE_H_
#define CRAWLER_SRC_CONFIG_OPTION_TABLE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "crawler/options.h"

namespace crawler::config_internal {

enum class Kind {
  kSwitch,    // bool; a bare flag (--quiet), TOML boolean
  kOnOff,     // bool; flag value on|off, TOML boolean
  kCount,     // uint64_t / int / size_t >= 0; "1e9", "1_000_000"
  kInteger,   // int that may be negative (max_depth = -1)
  kFraction,  // double in (0, 1)
  kBytes,     // uint64_t; "64MiB"
  kSeconds,   // double; "200ms", "1.5"
  kText,      // std::string
  kTextList,  // std::vector<std::string>; repeatable flag, TOML array
  kChoice,    // std::string from OptionSpec::choices
  kScope,     // Scope
};

// What each item of a kTextList is, and how it is checked.
enum class ListItem {
  kRegex,       // an RE2 pattern (--allow, --deny)
  kHeader,      // an HTTP request header "Name: value" (--header)
  kMediaType,   // a media type pattern "text/html", "image/*" (--accept-type)
  kExtensions,  // a comma-separated list of extensions "pdf,zip" (--reject-ext)
  kUrl,         // an absolute http(s) URL (--sitemap)
};

// A parsed value before it is stored into its field.
using OptionValue =
    std::variant<bool, uint64_t, int64_t, double, std::string, std::vector<std::string>, Scope>;

inline constexpr double kUnbounded = 1e300;

struct OptionSpec {
  std::string_view section;  // TOML table: "fetch"
  std::string_view key;      // TOML key inside it: "timeout"
  std::string_view flag;     // without dashes: "timeout"
  std::string_view metavar;  // in the help text: "SECONDS"
  std::string_view help;     // one line
  Kind kind;
  // Bounds for kCount / kInteger / kBytes / kSeconds, inclusive unless
  // above_min; for kText `min` is the minimum length. kFraction is always (0, 1).
  double min = 0;
  double max = kUnbounded;
  bool above_min = false;
  std::string_view choices = {};     // kChoice: "warn|grow"
  ListItem item = ListItem::kRegex;  // kTextList: what each item is
  // Printed as "[redacted]" by OptionsAsLines (the WARC warcinfo record):
  // the value may carry a secret (a proxy's USER:PASS, an Authorization header).
  bool secret = false;
  OptionValue (*get)(const CrawlOptions&) = nullptr;
  void (*set)(CrawlOptions&, const OptionValue&) = nullptr;

  std::string FullKey() const;  // "fetch.timeout"
};

std::span<const OptionSpec> OptionTable();

// A one-letter form of a flag, only where wget2's letter means the same
// (a wget user's `-q`, `-U`, `-i -` do here what they do there). Letters wget
// gives another meaning are not taken (-o, -O, -e, -t, -T, -l: a log file,
// an output document, a wgetrc command, tries with the first, idle
// timeouts, a depth where 0 means infinite).
struct ShortOption {
  char letter;
  std::string_view flag;   // the long flag it stands for, without dashes
  std::string_view value;  // a fixed value (-d: log-level debug); "" = the flag's own
};
std::span<const ShortOption> ShortOptions();
// The letter standing for `flag` with no fixed value, or 0.
char ShortLetterOf(std::string_view flag);

// Row for `--flag` / "section.key"; null when there is none.
const OptionSpec* FindByFlag(std::string_view flag);
const OptionSpec* FindByKey(std::string_view section, std::string_view key);

// Parses a flag's text (or a TOML string) by the row's kind and checks its
// range. The message quotes the value but not the flag or key.
absl::StatusOr<OptionValue> ParseOptionText(const OptionSpec& spec, std::string_view text);

// Range check of an already typed value (TOML numbers arrive typed);
// `shown` is how the message quotes the value.
absl::Status CheckOptionValue(const OptionSpec& spec, const OptionValue& value,
                              std::string_view shown);

// The value as a user would write it ("64MiB", "1s", "on"); for --help.
std::string FormatOptionValue(const OptionSpec& spec, const OptionValue& value);

}  // namespace crawler::config_internal

#endif  // CRAWLER_SRC_CONFIG_OPTION_TABLE_H_
