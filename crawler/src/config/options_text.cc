// CrawlOptionsToToml / DiffCrawlOptions: both walk the option table, so an
// option added to the table is stored and compared without a change here.
// Numbers are written as TOML numbers (doubles in full precision, so a
// stored 0.0123456789 reads back equal); text, choices and the scope as
// strings.
#include "crawler/options_text.h"

#include <toml++/toml.h>

#include <sstream>

#include "config/option_table.h"

namespace crawler {
namespace {

using config_internal::Kind;
using config_internal::OptionSpec;
using config_internal::OptionValue;

toml::table& SectionOf(toml::table& root, std::string_view section) {
  auto [it, inserted] = root.insert(section, toml::table{});
  return *it->second.as_table();
}

void InsertValue(toml::table& section, const OptionSpec& spec, const OptionValue& value) {
  if (spec.kind == Kind::kSwitch || spec.kind == Kind::kOnOff) {
    section.insert_or_assign(spec.key, std::get<bool>(value));
  } else if (spec.kind == Kind::kTextList) {
    toml::array items;
    for (const std::string& item : std::get<std::vector<std::string>>(value)) items.push_back(item);
    section.insert_or_assign(spec.key, std::move(items));
  } else if (const auto* real = std::get_if<double>(&value)) {
    section.insert_or_assign(spec.key, *real);
  } else if (const auto* count = std::get_if<uint64_t>(&value)) {
    section.insert_or_assign(spec.key, static_cast<int64_t>(*count));
  } else if (const auto* integer = std::get_if<int64_t>(&value)) {
    section.insert_or_assign(spec.key, *integer);
  } else {
    section.insert_or_assign(spec.key, config_internal::FormatOptionValue(spec, value));
  }
}

}  // namespace

std::string CrawlOptionsToToml(const CrawlOptions& options) {
  toml::table root;
  for (const OptionSpec& spec : config_internal::OptionTable()) {
    InsertValue(SectionOf(root, spec.section), spec, spec.get(options));
  }
  std::ostringstream out;
  out << root << "\n";
  return out.str();
}

std::vector<OptionDifference> DiffCrawlOptions(const CrawlOptions& first,
                                               const CrawlOptions& second) {
  std::vector<OptionDifference> differences;
  for (const OptionSpec& spec : config_internal::OptionTable()) {
    const OptionValue a = spec.get(first);
    const OptionValue b = spec.get(second);
    if (a == b) continue;
    differences.push_back({std::string(spec.flag), config_internal::FormatOptionValue(spec, a),
                           config_internal::FormatOptionValue(spec, b)});
  }
  return differences;
}

}  // namespace crawler
