// RepairPageLog: pages.jsonl after a crash. PageLog writes whole lines with
// one fwrite each, but a kill between the parts of a large line (stdio splits
// writes at its buffer size) leaves a torn last line; everything before the
// last newline is whole.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "crawler/crawl_state.h"

namespace crawler {
namespace {

// Offset just past the last '\n' at or after `from`, or `from` if none;
// counts the newlines seen.
absl::StatusOr<int64_t> EndOfLastLine(const std::string& path, int64_t from, int64_t* lines) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::UnavailableError(absl::StrCat("cannot read ", path));
  in.seekg(from);
  int64_t end = from;
  int64_t at = from;
  std::string block(1 << 20, '\0');
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const std::streamsize n = in.gcount();
    for (std::streamsize i = 0; i < n; ++i) {
      if (block[static_cast<size_t>(i)] != '\n') continue;
      ++*lines;
      end = at + i + 1;
    }
    at += n;
  }
  if (in.bad()) return absl::UnavailableError(absl::StrCat("cannot read ", path));
  return end;
}

}  // namespace

absl::StatusOr<int64_t> RepairPageLog(const std::string& path, int64_t log_bytes) {
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  const int64_t size = exists ? static_cast<int64_t>(std::filesystem::file_size(path, ec)) : 0;
  if (ec) return absl::UnavailableError(absl::StrCat("cannot stat ", path, ": ", ec.message()));
  if (size < log_bytes) {
    return absl::DataLossError(absl::StrCat(
        path, " has ", size, " bytes but held ", log_bytes,
        " at the checkpoint: records of finished pages are lost (--fresh starts over)"));
  }
  if (size == log_bytes) return 0;
  int64_t lines = 0;
  absl::StatusOr<int64_t> end = EndOfLastLine(path, log_bytes, &lines);
  if (!end.ok()) return end.status();
  if (*end < size && ::truncate(path.c_str(), *end) != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot cut the torn last line of ", path, ": ", std::strerror(errno)));
  }
  return lines;
}

}  // namespace crawler
