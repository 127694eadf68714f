// A small, independent WARC reader for the tests: inflates a .warc.gz member
// by member (each record must be exactly one member) and parses the record
// text strictly. Independent of crawler_warc's code so a bug there cannot hide.
#ifndef TESTS_CRAWLER_WARC_WARC_READER_H_
#define TESTS_CRAWLER_WARC_WARC_READER_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace crawler_test {

struct ParsedRecord {
  uint64_t offset = 0;       // of its gzip member in the file
  uint64_t member_size = 0;  // compressed bytes
  std::string version;       // "WARC/1.1"
  std::vector<std::pair<std::string, std::string>> fields;
  std::string block;

  // The value of the first field named `name` (case-insensitive), or "".
  std::string Field(const std::string& name) const;
  bool Has(const std::string& name) const;
  // The HTTP header part of the block (up to and including the empty line)
  // and what follows it.
  std::string HttpHeaders() const;
  std::string HttpPayload() const;
};

absl::StatusOr<std::vector<ParsedRecord>> ReadWarcFile(const std::string& path);
std::string ReadWholeFile(const std::string& path);

// sha1 in WARC form, computed with a plain bit-level base32 written here.
std::string TestSha1Base32(const std::string& data);

// A fresh empty folder under the test's TMPDIR.
std::string MakeTempDir(const std::string& name);

}  // namespace crawler_test

#endif  // TESTS_CRAWLER_WARC_WARC_READER_H_
