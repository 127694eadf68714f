// [[priority]] tables: url (RE2) and/or host (glob), and delta (an integer in
// [-1000, 1000]; the sum for a URL is clamped to the lane range anyway).
#include "config/priority_rules.h"

#include <string>

#include "config/strings.h"
#include "re2/re2.h"

namespace crawler::config_internal {
namespace {

constexpr int64_t kMaxDelta = 1000;

std::string LineOf(const toml::node& node) { return Cat(" (line ", node.source().begin.line, ")"); }

absl::StatusOr<PriorityRule> RuleOf(const std::string& path, const std::string& where,
                                    const toml::table& table) {
  PriorityRule rule;
  bool has_delta = false;
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    auto bad = [&](std::string_view message) {
      return absl::InvalidArgumentError(
          Cat(path, ": ", where, ".", name, ": ", message, LineOf(node)));
    };
    if (name == "url" || name == "host") {
      const auto* text = node.as_string();
      if (text == nullptr) return bad("expected a string");
      if (text->get().empty()) return bad("is empty");
      if (name == "url") {
        const re2::RE2 re(text->get(), re2::RE2::Quiet);
        if (!re.ok()) return bad(Cat("bad regex '", text->get(), "': ", re.error()));
        rule.url = text->get();
      } else {
        rule.host = text->get();
      }
    } else if (name == "delta") {
      const auto* integer = node.as_integer();
      if (integer == nullptr) return bad("expected an integer");
      if (integer->get() < -kMaxDelta || integer->get() > kMaxDelta) {
        return bad(Cat(integer->get(), " is outside [-", kMaxDelta, ", ", kMaxDelta, "]"));
      }
      rule.delta = static_cast<int>(integer->get());
      has_delta = true;
    } else {
      return absl::InvalidArgumentError(
          Cat(path, ": unknown key '", where, ".", name, "'", LineOf(node)));
    }
  }
  if (rule.url.empty() && rule.host.empty()) {
    return absl::InvalidArgumentError(
        Cat(path, ": ", where, ": needs 'url' or 'host'", LineOf(table)));
  }
  if (!has_delta) {
    return absl::InvalidArgumentError(
        Cat(path, ": ", where, ": missing key 'delta'", LineOf(table)));
  }
  return rule;
}

}  // namespace

absl::Status ApplyPriorityRules(const std::string& path, const toml::node& node,
                                CrawlOptions& options) {
  const toml::array* array = node.as_array();
  if (array == nullptr || !array->is_array_of_tables()) {
    return absl::InvalidArgumentError(
        Cat(path, ": priority: expected an array of tables ([[priority]])", LineOf(node)));
  }
  options.priorities.clear();
  for (size_t i = 0; i < array->size(); ++i) {
    absl::StatusOr<PriorityRule> rule =
        RuleOf(path, Cat("priority[", i, "]"), *array->get(i)->as_table());
    if (!rule.ok()) return rule.status();
    options.priorities.push_back(std::move(*rule));
  }
  return absl::OkStatus();
}

}  // namespace crawler::config_internal
