#include "warc/gzip_member.h"

#include <zlib.h>

#include "absl/strings/str_cat.h"

namespace crawler::warc_internal {

absl::Status AppendGzipMember(absl::string_view data, int level, std::string* out) {
  z_stream stream{};
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return absl::InternalError("deflateInit2 failed");
  }
  const size_t start = out->size();
  out->resize(start + deflateBound(&stream, data.size()));
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out->data() + start);
  stream.avail_out = static_cast<uInt>(out->size() - start);
  // deflateBound guarantees one Z_FINISH call completes the member.
  const int result = deflate(&stream, Z_FINISH);
  out->resize(start + stream.total_out);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) {
    out->resize(start);
    return absl::InternalError(absl::StrCat("deflate failed: ", result));
  }
  return absl::OkStatus();
}

}  // namespace crawler::warc_internal
