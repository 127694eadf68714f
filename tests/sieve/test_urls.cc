#include "sieve/test_urls.h"

#include <stdlib.h>

#include <string>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace sieve_test {

std::string TestUrl(uint64_t i) {
  return absl::StrCat("https://host", i % 5000, ".example.org/section/", (i / 5000) % 97,
                      "/article-", i, ".html?ref=", (i * 2654435761u) % 100000);
}

ScratchDir::ScratchDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "sieve-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) abort();
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

size_t CountFiles(const std::filesystem::path& dir) {
  size_t count = 0;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir, ignored)) {
    if (entry.is_regular_file()) ++count;
  }
  return count;
}

}  // namespace sieve_test
