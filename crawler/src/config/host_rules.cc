// [[hosts]] tables: pattern (required), per_host and delay (and ip_delay)
// with the same kinds and bounds as fetch.per_host and fetch.delay, per_ip an
// integer in [0, 1024] (their option-table rows
// parse and check the values, so "250ms" and 0.25 both work here too).
#include "config/host_rules.h"

#include <string>

#include "config/option_table.h"
#include "config/strings.h"

namespace crawler::config_internal {
namespace {

std::string LineOf(const toml::node& node) { return Cat(" (line ", node.source().begin.line, ")"); }

// A TOML value typed by the row `spec` (a count or a duration).
absl::StatusOr<OptionValue> ValueOf(const OptionSpec& spec, const toml::node& node) {
  if (const auto* text = node.as_string()) return ParseOptionText(spec, text->get());
  OptionValue value;
  std::string shown;
  if (const auto* integer = node.as_integer()) {
    shown = Cat(integer->get());
    if (spec.kind == Kind::kCount && integer->get() < 0) {
      return absl::InvalidArgumentError(Cat(shown, " is negative"));
    }
    value = spec.kind == Kind::kCount ? OptionValue(static_cast<uint64_t>(integer->get()))
                                      : OptionValue(static_cast<double>(integer->get()));
  } else if (const auto* number = node.as_floating_point(); number && spec.kind == Kind::kSeconds) {
    shown = Cat(number->get());
    value = number->get();
  } else {
    return absl::InvalidArgumentError(
        spec.kind == Kind::kCount ? "expected an integer"
                                  : "expected a duration (seconds or string like \"200ms\")");
  }
  absl::Status in_range = CheckOptionValue(spec, value, shown);
  if (!in_range.ok()) return in_range;
  return value;
}

absl::StatusOr<HostRule> RuleOf(const std::string& path, const std::string& where,
                                const toml::table& table) {
  HostRule rule;
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    auto bad = [&](std::string_view message) {
      return absl::InvalidArgumentError(
          Cat(path, ": ", where, ".", name, ": ", message, LineOf(node)));
    };
    if (name == "pattern") {
      const auto* text = node.as_string();
      if (text == nullptr) return bad("expected a string");
      if (text->get().empty()) return bad("is empty");
      rule.pattern = text->get();
    } else if (name == "per_ip") {
      const auto* integer = node.as_integer();
      if (integer == nullptr || integer->get() < 0 || integer->get() > 1024) {
        return bad("expected an integer in [0, 1024] (0 = no limit)");
      }
      rule.per_ip = static_cast<int>(integer->get());
    } else if (name == "ip_delay") {  // a duration, checked as fetch.delay
      absl::StatusOr<OptionValue> value = ValueOf(*FindByKey("fetch", "delay"), node);
      if (!value.ok()) return bad(std::string(value.status().message()));
      rule.ip_delay_s = std::get<double>(*value);
    } else if (name == "per_host" || name == "delay") {
      const OptionSpec* spec = FindByKey("fetch", name);
      absl::StatusOr<OptionValue> value = ValueOf(*spec, node);
      if (!value.ok()) return bad(std::string(value.status().message()));
      if (name == "per_host") {
        rule.per_host = static_cast<int>(std::get<uint64_t>(*value));
      } else {
        rule.delay_s = std::get<double>(*value);
      }
    } else if (name == "headers") {
      const auto* array = node.as_array();
      if (array == nullptr) return bad("expected an array of strings");
      const OptionSpec* spec = FindByKey("fetch", "headers");
      rule.headers.clear();
      for (const toml::node& item : *array) {
        const auto* text = item.as_string();
        if (text == nullptr) return bad("expected an array of strings");
        absl::StatusOr<OptionValue> value = ParseOptionText(*spec, text->get());
        if (!value.ok()) return bad(std::string(value.status().message()));
        rule.headers.push_back(text->get());
      }
    } else if (name == "user" || name == "password" || name == "auth") {
      const auto* text = node.as_string();
      if (text == nullptr) return bad("expected a string");
      std::string& field = name == "user"       ? rule.user
                           : name == "password" ? rule.password
                                                : rule.auth;
      field = text->get();
      if (name == "auth" && field != "basic" && field != "digest" && field != "any") {
        return bad("expected basic, digest or any");
      }
    } else {
      return absl::InvalidArgumentError(
          Cat(path, ": unknown key '", where, ".", name, "'", LineOf(node)));
    }
  }
  if (rule.pattern.empty()) {
    return absl::InvalidArgumentError(
        Cat(path, ": ", where, ": missing key 'pattern'", LineOf(table)));
  }
  return rule;
}

}  // namespace

absl::Status ApplyHostRules(const std::string& path, const toml::node& node,
                            CrawlOptions& options) {
  const toml::array* array = node.as_array();
  if (array == nullptr || !array->is_array_of_tables()) {
    return absl::InvalidArgumentError(
        Cat(path, ": hosts: expected an array of tables ([[hosts]])", LineOf(node)));
  }
  options.hosts.clear();
  for (size_t i = 0; i < array->size(); ++i) {
    absl::StatusOr<HostRule> rule = RuleOf(path, Cat("hosts[", i, "]"), *array->get(i)->as_table());
    if (!rule.ok()) return rule.status();
    options.hosts.push_back(std::move(*rule));
  }
  return absl::OkStatus();
}

}  // namespace crawler::config_internal
