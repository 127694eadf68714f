// Test helper: a crawl.toml text loaded from a temporary file on top of the
// built-in defaults, and the error it gives with the directory cut off.
#ifndef TESTS_CRAWLER_CONFIG_CONFIG_TEXT_H_
#define TESTS_CRAWLER_CONFIG_CONFIG_TEXT_H_

#include <string>

#include "absl/status/statusor.h"
#include "crawler/config/temp_files.h"
#include "crawler/options.h"

namespace crawler::testing {

// Loads `toml` from a file named crawl.toml in `dir` on top of the defaults.
absl::StatusOr<CrawlOptions> LoadText(const TempDir& dir, const std::string& toml);

// The error message with the temp directory cut off: "crawl.toml: ...".
// Expects (EXPECT_EQ) an InvalidArgument error; "(loaded fine)" if it loaded.
std::string ErrorOf(const TempDir& dir, const std::string& toml);

}  // namespace crawler::testing

#endif  // TESTS_CRAWLER_CONFIG_CONFIG_TEXT_H_
