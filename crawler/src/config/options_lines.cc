// OptionsAsLines: the option table walked once, each row's value formatted
// the way its flag takes it, so the listing cannot drift from the flags.
#include <string>

#include "absl/strings/str_replace.h"
#include "config/option_table.h"
#include "crawler/options.h"

namespace crawler {

std::string OptionsAsLines(const CrawlOptions& options) {
  std::string out;
  for (const config_internal::OptionSpec& spec : config_internal::OptionTable()) {
    std::string value = FormatOptionValue(spec, spec.get(options));
    if (spec.secret && !value.empty()) value = "[redacted]";
    out.append(spec.flag);
    out.append(": ");
    out.append(absl::StrReplaceAll(value, {{"\r\n", " "}, {"\n", " "}, {"\r", " "}}));
    out.append("\n");
  }
  return out;
}

}  // namespace crawler
