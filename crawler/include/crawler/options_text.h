// Options as text, for a crawl's checkpoint: the TOML copy of every option a
// resumed crawl reloads (with LoadConfigFile, so a damaged copy gets the same
// clear "file: key" errors as a user's config), and the list of flags whose
// values differ between two option sets (what `--resume` reports as
// conflicts).
//
//   std::string toml = crawler::CrawlOptionsToToml(options);     // stored
//   for (const crawler::OptionDifference& d : crawler::DiffCrawlOptions(stored, given))
//     std::cerr << "--" << d.flag << ": " << d.first << " vs " << d.second << "\n";
//
// Threading: pure functions, safe from any thread.
#ifndef CRAWLER_OPTIONS_TEXT_H_
#define CRAWLER_OPTIONS_TEXT_H_

#include <string>
#include <vector>

#include "crawler/options.h"

namespace crawler {

// Every field of the option table as TOML ([section] key = value; numbers as
// TOML numbers in full precision). LoadConfigFile of the text gives back
// `options` (config_file aside).
std::string CrawlOptionsToToml(const CrawlOptions& options);

// One option whose value differs; values as a user would write them.
struct OptionDifference {
  std::string flag;  // without dashes: "delay"
  std::string first;
  std::string second;
};

// The options (in --help order) whose values differ between `first` and
// `second`. config_file is not an option of the table and is never compared.
std::vector<OptionDifference> DiffCrawlOptions(const CrawlOptions& first,
                                               const CrawlOptions& second);

}  // namespace crawler

#endif  // CRAWLER_OPTIONS_TEXT_H_
