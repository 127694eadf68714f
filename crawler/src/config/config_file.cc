// LoadConfigFile: crawl.toml on top of a base CrawlOptions. Every key must be a
// row of the option table; see config/option_table.h.
#include <toml++/toml.h>

#include <cmath>
#include <string>

#include "absl/status/status.h"
#include "config/host_rules.h"
#include "config/option_table.h"
#include "config/priority_rules.h"
#include "config/read_file.h"
#include "config/strings.h"
#include "crawler/options.h"

namespace crawler {

using config_internal::Append;
using config_internal::Cat;
namespace {

using config_internal::CheckOptionValue;
using config_internal::FindByKey;
using config_internal::Kind;
using config_internal::OptionSpec;
using config_internal::OptionValue;
using config_internal::ParseOptionText;

std::string_view TypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    default:
      return "a date or time";
  }
}

std::string_view ExpectedType(Kind kind) {
  switch (kind) {
    case Kind::kSwitch:
    case Kind::kOnOff:
      return "true or false";
    case Kind::kCount:
      return "a count (integer or string like \"1e9\")";
    case Kind::kInteger:
      return "an integer";
    case Kind::kFraction:
      return "a number";
    case Kind::kBytes:
      return "a size (integer or string like \"64MiB\")";
    case Kind::kSeconds:
      return "a duration (seconds or string like \"200ms\")";
    case Kind::kTextList:
      return "an array of strings";
    default:
      return "a string";
  }
}

absl::Status WrongType(const OptionSpec& spec, const toml::node& node) {
  return absl::InvalidArgumentError(
      Cat("expected ", ExpectedType(spec.kind), ", got ", TypeName(node)));
}

// A TOML number as the row's kind wants it; counts must be whole and >= 0.
absl::StatusOr<OptionValue> FromNumber(const OptionSpec& spec, double number,
                                       std::string_view shown) {
  switch (spec.kind) {
    case Kind::kCount:
    case Kind::kBytes:
      if (number < 0) return absl::InvalidArgumentError(Cat(shown, " is negative"));
      if (number != std::floor(number) || number >= 18446744073709551616.0) {
        return absl::InvalidArgumentError(Cat(shown, " is not a whole number"));
      }
      return OptionValue(static_cast<uint64_t>(number));
    case Kind::kInteger:
      if (number != std::floor(number) || std::abs(number) > 9e18) {
        return absl::InvalidArgumentError(Cat(shown, " is not an integer"));
      }
      return OptionValue(static_cast<int64_t>(number));
    case Kind::kSeconds:
      if (number < 0) return absl::InvalidArgumentError(Cat(shown, " is negative"));
      return OptionValue(number);
    default:
      return OptionValue(number);
  }
}

absl::StatusOr<OptionValue> FromList(const OptionSpec& spec, const toml::array& array) {
  std::vector<std::string> items;
  for (const toml::node& element : array) {
    const auto* text = element.as_string();
    if (text == nullptr) return WrongType(spec, element);
    absl::StatusOr<OptionValue> one = ParseOptionText(spec, text->get());
    if (!one.ok()) return one.status();
    items.push_back(text->get());
  }
  return OptionValue(std::move(items));
}

bool IsNumericKind(Kind kind) {
  return kind == Kind::kCount || kind == Kind::kInteger || kind == Kind::kFraction ||
         kind == Kind::kBytes || kind == Kind::kSeconds;
}

// The value if it passes the row's range check, else the range error.
absl::StatusOr<OptionValue> Checked(const OptionSpec& spec, absl::StatusOr<OptionValue> value,
                                    std::string_view shown) {
  if (!value.ok()) return value;
  absl::Status in_range = CheckOptionValue(spec, *value, shown);
  if (!in_range.ok()) return in_range;
  return value;
}

absl::StatusOr<OptionValue> FromInteger(const OptionSpec& spec, int64_t integer) {
  std::string shown = Cat(integer);
  if (spec.kind == Kind::kInteger) return Checked(spec, OptionValue(integer), shown);
  absl::StatusOr<OptionValue> value = FromNumber(spec, static_cast<double>(integer), shown);
  // A count keeps the exact integer, not its rounded double.
  if (value.ok() && std::holds_alternative<uint64_t>(*value)) {
    value = OptionValue(static_cast<uint64_t>(integer));
  }
  return Checked(spec, std::move(value), shown);
}

absl::StatusOr<OptionValue> FromFloat(const OptionSpec& spec, double number) {
  std::string shown = Cat(number);
  return Checked(spec, FromNumber(spec, number, shown), shown);
}

absl::StatusOr<OptionValue> FromNode(const OptionSpec& spec, const toml::node& node) {
  bool boolean_kind = spec.kind == Kind::kSwitch || spec.kind == Kind::kOnOff;
  if (spec.kind == Kind::kTextList) {
    if (const auto* array = node.as_array()) return FromList(spec, *array);
  } else if (const auto* flag = node.as_boolean()) {
    if (boolean_kind) return OptionValue(flag->get());
  } else if (const auto* text = node.as_string()) {
    if (!boolean_kind) return ParseOptionText(spec, text->get());
  } else if (IsNumericKind(spec.kind)) {
    if (const auto* integer = node.as_integer()) return FromInteger(spec, integer->get());
    if (const auto* floating = node.as_floating_point()) return FromFloat(spec, floating->get());
  }
  return WrongType(spec, node);
}

std::string LineOf(const toml::node& node) { return Cat(" (line ", node.source().begin.line, ")"); }

absl::Status ApplySection(const std::string& path, std::string_view section,
                          const toml::table& table, CrawlOptions& options) {
  for (const auto& [key, node] : table) {
    const OptionSpec* spec = FindByKey(section, key.str());
    if (spec == nullptr) {
      return absl::InvalidArgumentError(
          Cat(path, ": unknown key '", section, ".", key.str(), "'", LineOf(node)));
    }
    absl::StatusOr<OptionValue> value = FromNode(*spec, node);
    if (!value.ok()) {
      return absl::InvalidArgumentError(
          Cat(path, ": ", spec->FullKey(), ": ", value.status().message(), LineOf(node)));
    }
    spec->set(options, *value);
  }
  return absl::OkStatus();
}

bool IsSection(std::string_view name) {
  for (const OptionSpec& spec : config_internal::OptionTable()) {
    if (spec.section == name) return true;
  }
  return false;
}

absl::StatusOr<toml::table> ParseToml(const std::string& path, const std::string& text) {
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& error) {
    const toml::source_position& where = error.source().begin;
    return absl::InvalidArgumentError(
        Cat(path, ":", where.line, ":", where.column, ": invalid TOML: ", error.description()));
  }
}

}  // namespace

absl::StatusOr<CrawlOptions> LoadConfigFile(const std::string& path, CrawlOptions base) {
  absl::StatusOr<std::string> text =
      config_internal::ReadWholeFile(path, config_internal::kMaxConfigFileBytes, "a config file");
  if (!text.ok()) return text.status();
  absl::StatusOr<toml::table> document = ParseToml(path, *text);
  if (!document.ok()) return document.status();
  for (const auto& [name, node] : *document) {
    if (name.str() == config_internal::kHostsKey) {  // [[hosts]]: see host_rules.h
      absl::Status applied = config_internal::ApplyHostRules(path, node, base);
      if (!applied.ok()) return applied;
      continue;
    }
    if (name.str() == config_internal::kPriorityKey) {  // [[priority]]: see priority_rules.h
      absl::Status applied = config_internal::ApplyPriorityRules(path, node, base);
      if (!applied.ok()) return applied;
      continue;
    }
    if (!IsSection(name.str())) {
      return absl::InvalidArgumentError(
          Cat(path, ": unknown key '", name.str(), "'", LineOf(node)));
    }
    const toml::table* section = node.as_table();
    if (section == nullptr) {
      return absl::InvalidArgumentError(
          Cat(path, ": ", name.str(), ": expected a table, got ", TypeName(node), LineOf(node)));
    }
    absl::Status applied = ApplySection(path, name.str(), *section, base);
    if (!applied.ok()) return applied;
  }
  base.config_file = path;
  return base;
}

}  // namespace crawler
