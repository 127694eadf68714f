// Parsing, checking and printing one option value by the kind of its row.
#include <cmath>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "config/decimal.h"
#include "config/option_table.h"
#include "config/strings.h"
#include "crawler/counts.h"
#include "crawler/type_filter.h"
#include "crawler/url.h"
#include "re2/re2.h"

// GCC 12 with -fsanitize=address reports -Wmaybe-uninitialized inside
// std::variant's string/vector members when a StatusOr<OptionValue> is moved;
// a known false positive (GCC bug 105562 and relatives), silenced here only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace crawler::config_internal {
namespace {

absl::Status Invalid(std::string_view text, std::string_view what) {
  return absl::InvalidArgumentError(Cat("'", text, "' is not ", what));
}

absl::StatusOr<OptionValue> ParseBool(std::string_view text, std::string_view what) {
  if (text == "true" || text == "on") return OptionValue(true);
  if (text == "false" || text == "off") return OptionValue(false);
  return Invalid(text, what);
}

absl::StatusOr<OptionValue> ParseInteger(std::string_view text) {
  bool negative = text.starts_with('-');
  absl::StatusOr<uint64_t> magnitude = ParseCount(negative ? text.substr(1) : text);
  if (!magnitude.ok() || *magnitude > static_cast<uint64_t>(INT64_MAX)) {
    return Invalid(text, "an integer");
  }
  int64_t value = static_cast<int64_t>(*magnitude);
  return OptionValue(negative ? -value : value);
}

absl::StatusOr<OptionValue> ParseFraction(std::string_view text) {
  if (text.starts_with('-')) {
    absl::StatusOr<Decimal> magnitude = ParseDecimal(text.substr(1));
    if (magnitude.ok()) return absl::InvalidArgumentError(Cat(text, " is not in (0, 1)"));
  }
  absl::StatusOr<Decimal> number = ParseDecimal(text);
  absl::StatusOr<double> value =
      number.ok() ? ToDouble(*number) : absl::StatusOr<double>(number.status());
  if (!value.ok()) return Invalid(text, "a number");
  return OptionValue(*value);
}

absl::StatusOr<OptionValue> ParseRegex(std::string_view text) {
  RE2::Options options;
  options.set_log_errors(false);
  RE2 pattern(re2::StringPiece(text.data(), text.size()), options);
  if (!pattern.ok()) {
    return absl::InvalidArgumentError(
        Cat("'", text, "' is not a valid RE2 pattern: ", pattern.error()));
  }
  return OptionValue(std::vector<std::string>{std::string(text)});
}

// "Name: value": a token (RFC 9110 5.1) before the colon; no control
// characters anywhere (a CR or LF would inject headers).
absl::StatusOr<OptionValue> ParseHeader(std::string_view text) {
  const size_t colon = text.find(':');
  constexpr std::string_view kTokenSymbols = "!#$%&'*+-.^_`|~";
  bool token = colon != std::string_view::npos && colon > 0;
  for (size_t i = 0; token && i < colon; ++i) {
    const char c = text[i];
    token = absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
            kTokenSymbols.find(c) != std::string_view::npos;
  }
  if (!token) return Invalid(text, "a header 'Name: value'");
  for (char c : text) {
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) {
      return absl::InvalidArgumentError(
          Cat("'", absl::CEscape(Absl(text)), "' contains a control character"));
    }
  }
  return OptionValue(std::vector<std::string>{std::string(text)});
}

// An absolute http or https URL, as the crawl would fetch it.
absl::StatusOr<OptionValue> ParseHttpUrl(std::string_view text) {
  absl::StatusOr<Url> url = Url::Parse(text);
  if (!url.ok()) return Invalid(text, Cat("a URL: ", url.status().message()));
  if (url->scheme() != "http" && url->scheme() != "https") return Invalid(text, "an http(s) URL");
  return OptionValue(std::vector<std::string>{std::string(text)});
}

// One item of a kTextList, checked by what it is; kept as written.
absl::StatusOr<OptionValue> ParseListItem(ListItem item, std::string_view text) {
  switch (item) {
    case ListItem::kRegex:
      return ParseRegex(text);
    case ListItem::kHeader:
      return ParseHeader(text);
    case ListItem::kMediaType:
      if (absl::Status ok = CheckMediaTypePattern(text); !ok.ok()) return ok;
      break;
    case ListItem::kExtensions:
      if (absl::Status ok = ParseExtensionList(text).status(); !ok.ok()) return ok;
      break;
    case ListItem::kUrl:
      return ParseHttpUrl(text);
  }
  return OptionValue(std::vector<std::string>{std::string(text)});
}

absl::StatusOr<OptionValue> ParseChoice(const OptionSpec& spec, std::string_view text) {
  for (absl::string_view choice : absl::StrSplit(Absl(spec.choices), '|')) {
    if (text == Std(choice)) return OptionValue(std::string(text));
  }
  return Invalid(text, Cat("one of ", spec.choices));
}

absl::StatusOr<OptionValue> ParseByKind(const OptionSpec& spec, std::string_view text) {
  switch (spec.kind) {
    case Kind::kSwitch:
      return ParseBool(text, "true or false");
    case Kind::kOnOff:
      return ParseBool(text, "on or off");
    case Kind::kCount: {
      absl::StatusOr<uint64_t> count = ParseCount(text);
      if (!count.ok()) return count.status();
      return OptionValue(*count);
    }
    case Kind::kInteger:
      return ParseInteger(text);
    case Kind::kFraction:
      return ParseFraction(text);
    case Kind::kBytes: {
      absl::StatusOr<uint64_t> bytes = ParseBytes(text);
      if (!bytes.ok()) return bytes.status();
      return OptionValue(*bytes);
    }
    case Kind::kSeconds: {
      absl::StatusOr<double> seconds = ParseDuration(text);
      if (!seconds.ok()) return seconds.status();
      return OptionValue(*seconds);
    }
    case Kind::kText:
      return OptionValue(std::string(text));
    case Kind::kTextList:
      return ParseListItem(spec.item, text);
    case Kind::kChoice:
      return ParseChoice(spec, text);
    case Kind::kScope: {
      absl::StatusOr<Scope> scope = ParseScope(text);
      if (!scope.ok()) return scope.status();
      return OptionValue(*scope);
    }
  }
  return absl::InternalError("unhandled option kind");
}

// The value as a double for range checks, or NaN for non-numeric kinds.
double NumericValue(const OptionValue& value) {
  if (const auto* u = std::get_if<uint64_t>(&value)) return static_cast<double>(*u);
  if (const auto* i = std::get_if<int64_t>(&value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&value)) return *d;
  return NAN;
}

absl::Status CheckText(const OptionSpec& spec, const std::string& text) {
  if (text.size() < spec.min) return absl::InvalidArgumentError("must not be empty");
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError(
          Cat("'", absl::CEscape(text), "' contains a control character"));
    }
  }
  return absl::OkStatus();
}

std::string FormatBytes(uint64_t bytes) {
  constexpr std::pair<uint64_t, std::string_view> kUnits[] = {
      {uint64_t{1} << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}};
  for (const auto& [size, name] : kUnits) {
    if (bytes != 0 && bytes % size == 0) return Cat(bytes / size, name);
  }
  return Cat(bytes);
}

std::string FormatSeconds(double seconds) {
  // Whole days as days: --revisit-max's 30 days read "30d", not "2.592e+06s".
  if (seconds >= 86400 && std::fmod(seconds, 86400) == 0) return Cat(seconds / 86400, "d");
  double milliseconds = seconds * 1000;
  if (seconds != std::floor(seconds) && milliseconds == std::floor(milliseconds)) {
    return Cat(milliseconds, "ms");
  }
  return Cat(seconds, "s");
}

// Bounds are doubles in the table; print whole ones as integers.
std::string FormatBound(double bound) {
  if (bound == std::floor(bound) && std::abs(bound) < 1e18) {
    return Cat(static_cast<int64_t>(bound));
  }
  return Cat(bound);
}

}  // namespace

absl::StatusOr<OptionValue> ParseOptionText(const OptionSpec& spec, std::string_view text) {
  absl::StatusOr<OptionValue> value = ParseByKind(spec, text);
  if (!value.ok()) return value;
  absl::Status in_range = CheckOptionValue(spec, *value, text);
  if (!in_range.ok()) return in_range;
  return value;
}

absl::Status CheckOptionValue(const OptionSpec& spec, const OptionValue& value,
                              std::string_view shown) {
  if (const auto* text = std::get_if<std::string>(&value)) return CheckText(spec, *text);
  double number = NumericValue(value);
  if (std::isnan(number)) return absl::OkStatus();
  if (spec.kind == Kind::kFraction) {
    if (number > 0 && number < 1) return absl::OkStatus();
    return absl::InvalidArgumentError(Cat(shown, " is not in (0, 1)"));
  }
  if (spec.above_min && !(number > spec.min)) {
    return absl::InvalidArgumentError(Cat(shown, " must be greater than ", FormatBound(spec.min)));
  }
  if (number < spec.min || number > spec.max) {
    if (spec.max >= kUnbounded) {
      return absl::InvalidArgumentError(Cat(shown, " must be at least ", FormatBound(spec.min)));
    }
    return absl::InvalidArgumentError(
        Cat(shown, " is not in [", FormatBound(spec.min), ", ", FormatBound(spec.max), "]"));
  }
  return absl::OkStatus();
}

std::string FormatOptionValue(const OptionSpec& spec, const OptionValue& value) {
  switch (spec.kind) {
    case Kind::kSwitch:
      return std::get<bool>(value) ? "true" : "false";
    case Kind::kOnOff:
      return std::get<bool>(value) ? "on" : "off";
    case Kind::kBytes:
      return FormatBytes(std::get<uint64_t>(value));
    case Kind::kSeconds:
      return FormatSeconds(std::get<double>(value));
    case Kind::kTextList:
      return absl::StrJoin(std::get<std::vector<std::string>>(value), " ");
    case Kind::kScope:
      return std::string(ScopeName(std::get<Scope>(value)));
    default:
      break;
  }
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  if (const auto* u = std::get_if<uint64_t>(&value)) return Cat(*u);
  if (const auto* i = std::get_if<int64_t>(&value)) return Cat(*i);
  if (const auto* d = std::get_if<double>(&value)) return Cat(*d);
  return "";
}

}  // namespace crawler::config_internal
