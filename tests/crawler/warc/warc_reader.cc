#include "warc_reader.h"

#include <openssl/sha.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace crawler_test {
namespace {

absl::Status ParseRecordText(const std::string& text, ParsedRecord* record) {
  const size_t end_of_fields = text.find("\r\n\r\n");
  if (end_of_fields == std::string::npos) return absl::DataLossError("no end of WARC fields");
  size_t line_start = 0;
  bool first = true;
  while (line_start < end_of_fields + 2) {
    const size_t line_end = text.find("\r\n", line_start);
    const std::string line = text.substr(line_start, line_end - line_start);
    line_start = line_end + 2;
    if (first) {
      record->version = line;
      first = false;
      continue;
    }
    const size_t colon = line.find(": ");
    if (colon == std::string::npos) return absl::DataLossError("bad field line: " + line);
    record->fields.emplace_back(line.substr(0, colon), line.substr(colon + 2));
  }
  uint64_t length = 0;
  if (!absl::SimpleAtoi(record->Field("Content-Length"), &length)) {
    return absl::DataLossError("no Content-Length");
  }
  const size_t block_start = end_of_fields + 4;
  if (text.size() != block_start + length + 4) {
    return absl::DataLossError(
        absl::StrCat("member holds ", text.size(), " bytes, expected ", block_start + length + 4));
  }
  record->block = text.substr(block_start, length);
  if (text.substr(block_start + length) != "\r\n\r\n") return absl::DataLossError("no trailer");
  return absl::OkStatus();
}

}  // namespace

std::string ParsedRecord::Field(const std::string& name) const {
  for (const auto& [key, value] : fields) {
    if (absl::EqualsIgnoreCase(key, name)) return value;
  }
  return "";
}

bool ParsedRecord::Has(const std::string& name) const {
  for (const auto& field : fields) {
    if (absl::EqualsIgnoreCase(field.first, name)) return true;
  }
  return false;
}

std::string ParsedRecord::HttpHeaders() const {
  const size_t end = block.find("\r\n\r\n");
  return end == std::string::npos ? block : block.substr(0, end + 4);
}

std::string ParsedRecord::HttpPayload() const {
  const size_t end = block.find("\r\n\r\n");
  return end == std::string::npos ? "" : block.substr(end + 4);
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

absl::StatusOr<std::vector<ParsedRecord>> ReadWarcFile(const std::string& path) {
  const std::string data = ReadWholeFile(path);
  std::vector<ParsedRecord> records;
  uint64_t offset = 0;
  while (offset < data.size()) {
    z_stream stream{};
    inflateInit2(&stream, 15 + 16);
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + offset));
    stream.avail_in = static_cast<uInt>(data.size() - offset);
    std::string text;
    char out[16384];
    int result = Z_OK;
    while (result == Z_OK) {
      stream.next_out = reinterpret_cast<Bytef*>(out);
      stream.avail_out = sizeof out;
      result = inflate(&stream, Z_NO_FLUSH);
      text.append(out, sizeof out - stream.avail_out);
    }
    const uint64_t consumed = stream.total_in;
    inflateEnd(&stream);
    if (result != Z_STREAM_END) {
      return absl::DataLossError(absl::StrCat("bad gzip member at ", offset, " of ", path));
    }
    ParsedRecord record;
    record.offset = offset;
    record.member_size = consumed;
    if (absl::Status s = ParseRecordText(text, &record); !s.ok()) {
      return absl::DataLossError(absl::StrCat(s.message(), " at ", offset, " of ", path));
    }
    records.push_back(std::move(record));
    offset += consumed;
  }
  return records;
}

std::string TestSha1Base32(const std::string& data) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out = "sha1:";
  // 160 bits = 32 groups of 5 bits, read bit by bit.
  for (int group = 0; group < 32; ++group) {
    int value = 0;
    for (int bit = 0; bit < 5; ++bit) {
      const int index = group * 5 + bit;
      value = (value << 1) | ((digest[index / 8] >> (7 - index % 8)) & 1);
    }
    out.push_back(kAlphabet[value]);
  }
  return out;
}

std::string MakeTempDir(const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  std::filesystem::path dir = std::filesystem::path(tmp ? tmp : "/tmp") /
                              absl::StrCat("crawl-warc-", name, "-", ::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace crawler_test
