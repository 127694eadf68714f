// The hostile bodies that are generated while they are sent, so that a 10 GB
// body or a million links cost the server a few kilobytes of memory.
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "content_types.h"
#include "hostile_routes.h"

namespace testsite {
namespace {

constexpr size_t kDripBytes = 1000;
constexpr size_t kChunk = 64 << 10;
constexpr uint64_t kLinksPerChunk = 1000;

}  // namespace

void SetDripBody(httplib::Response& response, int interval_ms, const StopSignal& stop) {
  response.set_content_provider(
      kDripBytes, kHtml, [interval_ms, &stop](size_t offset, size_t, httplib::DataSink& sink) {
        // The first byte goes out at once; each later one waits its turn.
        if (offset > 0 && stop.WaitFor(std::chrono::milliseconds(interval_ms))) return false;
        return sink.write(offset == 0 ? "<" : " ", 1);
      });
}

void SetHugeBody(httplib::Response& response, uint64_t bytes, const StopSignal& stop) {
  auto filler = std::make_shared<std::string>("<!DOCTYPE html><html><body>\n");
  while (filler->size() < kChunk) filler->append("<p>a huge page that never ends</p>\n");
  response.set_content_provider(
      static_cast<size_t>(bytes), kHtml,
      [filler, &stop](size_t, size_t length, httplib::DataSink& sink) {
        // A false write means the client hung up: the provider then stops.
        return !stop.IsNotified() && sink.write(filler->data(), std::min(length, filler->size()));
      });
}

void SetMillionLinksBody(httplib::Response& response, uint64_t count, std::string link_base,
                         const StopSignal& stop) {
  // A fixed length, not chunked: cpp-httplib would compress a chunked text
  // body (brotli at its slowest quality), which costs seconds for 35 MB.
  const std::string head =
      "<!DOCTYPE html><html><head><title>A million links</title></head><body>\n";
  const std::string tail = "</body></html>\n";
  auto link = [link_base = std::move(link_base)](uint64_t i) {
    return absl::StrCat("<a href=\"", link_base, "/m/", i, "\">", i, "</a>\n");
  };
  size_t length = head.size() + tail.size();
  for (uint64_t i = 0; i < count; ++i) length += link(i).size();
  auto next = std::make_shared<uint64_t>(0);
  response.set_content_provider(
      length, kHtml,
      [count, head, tail, link, next, &stop](size_t offset, size_t, httplib::DataSink& sink) {
        if (stop.IsNotified()) return false;
        std::string chunk = offset == 0 ? head : "";
        const uint64_t end = std::min(count, *next + kLinksPerChunk);
        for (; *next < end; ++*next) chunk += link(*next);
        if (*next == count) chunk += tail;
        return sink.write(chunk.data(), chunk.size());
      });
}

bool SendGzipBomb(int fd, uint64_t decoded_bytes) {
  z_stream z{};
  // 15 + 16: a gzip wrapper; level 9 packs zeros about 1000 to 1.
  if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return false;
  bool open = SendAll(fd,
                      "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n"
                      "Connection: close\r\n\r\n");
  const std::string zeros(1 << 20, '\0');
  std::string out(64 << 10, '\0');
  uint64_t left = decoded_bytes;
  while (open) {
    const size_t take = static_cast<size_t>(std::min<uint64_t>(left, zeros.size()));
    left -= take;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(zeros.data()));
    z.avail_in = static_cast<uInt>(take);
    const int flush = left == 0 ? Z_FINISH : Z_NO_FLUSH;
    int result = Z_OK;
    do {
      z.next_out = reinterpret_cast<Bytef*>(out.data());
      z.avail_out = static_cast<uInt>(out.size());
      result = deflate(&z, flush);
      const size_t produced = out.size() - z.avail_out;
      if (produced > 0) open = SendAll(fd, std::string_view(out.data(), produced));
    } while (open && z.avail_out == 0);
    if (result == Z_STREAM_END || left == 0) break;
  }
  deflateEnd(&z);
  return true;
}

}  // namespace testsite
