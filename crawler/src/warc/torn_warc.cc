// TruncateTornWarc: a crash mid-write leaves at most one partial gzip member at
// the end (the writer appends whole members in order). Inflating member by
// member finds the end of the last complete one; everything after it goes.
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "crawler/warc.h"

namespace crawler {
namespace {

using FilePtr = std::unique_ptr<std::FILE, decltype(&std::fclose)>;

// Length of the prefix of the file made of complete gzip members. Streams in
// 1 MiB reads, so a 1 GB file costs no more memory than a small one.
uint64_t CompleteMembersLength(std::FILE* file) {
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 16) != Z_OK) return 0;
  std::vector<unsigned char> in(1 << 20);
  std::vector<unsigned char> out(64 << 10);
  uint64_t good = 0;  // end of the last complete member
  uint64_t base = 0;  // file offset of in[0]
  size_t have = 0;
  while (true) {
    if (stream.avail_in == 0) {
      base += have;
      have = std::fread(in.data(), 1, in.size(), file);
      if (have == 0) break;
      stream.next_in = in.data();
      stream.avail_in = static_cast<uInt>(have);
    }
    stream.next_out = out.data();
    stream.avail_out = static_cast<uInt>(out.size());
    const int result = inflate(&stream, Z_NO_FLUSH);
    if (result == Z_STREAM_END) {
      good = base + static_cast<uint64_t>(stream.next_in - in.data());
      inflateReset(&stream);
      continue;
    }
    if (result != Z_OK && !(result == Z_BUF_ERROR && stream.avail_in == 0)) break;  // garbage
  }
  inflateEnd(&stream);
  return good;
}

}  // namespace

absl::Status TruncateTornWarc(const std::string& path) {
  FilePtr file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot open WARC ", path));
  const uint64_t keep = CompleteMembersLength(file.get());
  if (std::ferror(file.get())) return absl::InternalError(absl::StrCat("cannot read WARC ", path));
  std::error_code error;
  const uint64_t size = std::filesystem::file_size(path, error);
  if (error) return absl::InternalError(absl::StrCat("cannot stat WARC ", path));
  if (keep == size) return absl::OkStatus();
  if (::truncate(path.c_str(), static_cast<off_t>(keep)) != 0) {
    return absl::InternalError(absl::StrCat("cannot truncate ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace crawler
