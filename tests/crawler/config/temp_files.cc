#include "crawler/config/temp_files.h"

#include <stdlib.h>

#include <fstream>
#include <stdexcept>

namespace crawler::testing {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "crawl-config-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::string TempDir::Write(std::string_view name, std::string_view contents) const {
  std::string path = Path(name);
  std::ofstream out(path, std::ios::binary);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
  return path;
}

std::string TempDir::Path(std::string_view name) const { return (dir_ / name).string(); }

}  // namespace crawler::testing
