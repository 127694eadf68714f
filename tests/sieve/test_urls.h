// Deterministic, distinct test URLs for the sieve tests, and a scratch
// directory that removes itself.
#ifndef TESTS_SIEVE_TEST_URLS_H_
#define TESTS_SIEVE_TEST_URLS_H_

#include <cstdint>
#include <filesystem>
#include <string>

namespace sieve_test {

// URL number i: distinct for distinct i, ~60-80 bytes, spread over 5000 hosts.
std::string TestUrl(uint64_t i);

// A fresh directory under the system temporary directory, removed on destruction.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Number of regular files under `dir`, recursively.
size_t CountFiles(const std::filesystem::path& dir);

}  // namespace sieve_test

#endif  // TESTS_SIEVE_TEST_URLS_H_
