// Test helper: gzip a text in memory (sitemaps, Content-Encoding bodies).
#ifndef CRAWL_TESTS_SUPPORT_GZIP_H_
#define CRAWL_TESTS_SUPPORT_GZIP_H_

#include <zlib.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace test_support {

// `data` as one gzip member (zlib's windowBits 15 + 16: the gzip wrapper).
// Aborts if zlib fails, which only a broken zlib does.
inline std::string Gzip(std::string_view data) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    std::abort();
  }
  std::string out(deflateBound(&stream, data.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int finished = deflate(&stream, Z_FINISH);
  deflateEnd(&stream);
  if (finished != Z_STREAM_END) std::abort();
  out.resize(stream.total_out);
  return out;
}

}  // namespace test_support

#endif  // CRAWL_TESTS_SUPPORT_GZIP_H_
