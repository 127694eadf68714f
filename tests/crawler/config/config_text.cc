#include "crawler/config/config_text.h"

#include <gtest/gtest.h>

namespace crawler::testing {

absl::StatusOr<CrawlOptions> LoadText(const TempDir& dir, const std::string& toml) {
  return LoadConfigFile(dir.Write("crawl.toml", toml), CrawlOptions{});
}

std::string ErrorOf(const TempDir& dir, const std::string& toml) {
  absl::StatusOr<CrawlOptions> loaded = LoadText(dir, toml);
  if (loaded.ok()) return "(loaded fine)";
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(loaded.status().message());
  const std::string prefix = dir.Path("");
  return message.starts_with(prefix) ? message.substr(prefix.size()) : message;
}

}  // namespace crawler::testing
