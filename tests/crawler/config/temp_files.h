// Test helper: a fresh temporary directory per test, removed afterwards, and
// files written into it.
#ifndef TESTS_CRAWLER_CONFIG_TEMP_FILES_H_
#define TESTS_CRAWLER_CONFIG_TEMP_FILES_H_

#include <filesystem>
#include <string>
#include <string_view>

namespace crawler::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `contents` to dir/name and returns the full path.
  std::string Write(std::string_view name, std::string_view contents) const;
  std::string Path(std::string_view name) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace crawler::testing

#endif  // TESTS_CRAWLER_CONFIG_TEMP_FILES_H_
