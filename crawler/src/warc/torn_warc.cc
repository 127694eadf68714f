// TruncateTornWarc: a crash mid-write leaves at most one partial gzip member at
// the end (the writer appends whole members in order). Inflating member by
// member finds the end of the last complete one; everything after it goes.
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "crawler/warc.h"

namespace crawler {
namespace {

// Length of the prefix of `data` made of complete gzip members.
uint64_t CompleteMembersLength(const std::string& data) {
  uint64_t good = 0;
  std::vector<unsigned char> sink(64 << 10);
  while (good < data.size()) {
    z_stream stream{};
    if (inflateInit2(&stream, 15 + 16) != Z_OK) return good;
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + good));
    stream.avail_in = static_cast<uInt>(data.size() - good);
    int result = Z_OK;
    while (result == Z_OK) {
      stream.next_out = sink.data();
      stream.avail_out = static_cast<uInt>(sink.size());
      result = inflate(&stream, Z_NO_FLUSH);
    }
    const uint64_t consumed = stream.total_in;
    inflateEnd(&stream);
    if (result != Z_STREAM_END) break;  // torn or garbage: cut here
    good += consumed;
  }
  return good;
}

}  // namespace

absl::Status TruncateTornWarc(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open WARC ", path));
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return absl::InternalError(absl::StrCat("cannot read WARC ", path));
  const uint64_t keep = CompleteMembersLength(data);
  if (keep == data.size()) return absl::OkStatus();
  if (::truncate(path.c_str(), static_cast<off_t>(keep)) != 0) {
    return absl::InternalError(absl::StrCat("cannot truncate ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace crawler
