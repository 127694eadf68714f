// ParseSitemap: gzip detection, bounded streaming inflation, and the bytes fed
// to the XML reader as they come.
#include "crawler/sitemap.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "robots/sitemap_xml.h"

namespace crawler {
namespace {

using robots_internal::SitemapXml;

bool IsGzip(std::string_view body) {
  return body.size() >= 2 && static_cast<unsigned char>(body[0]) == 0x1f &&
         static_cast<unsigned char>(body[1]) == 0x8b;
}

// Inflates gzip `data` (concatenated members too) into `reader`, 64 KiB at a
// time, stopping after `cap` decoded bytes. `truncated` is set when the cap
// was reached or the stream ended early. Memory: one chunk, whatever the size.
absl::Status GunzipInto(std::string_view data, size_t cap, SitemapXml* reader, bool* truncated) {
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 16) != Z_OK) return absl::InternalError("inflateInit2 failed");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(std::min<size_t>(data.size(), UINT32_MAX));
  char chunk[64 * 1024];
  size_t decoded = 0;
  int result = Z_OK;
  bool reading = true;
  while (reading && decoded < cap) {
    stream.next_out = reinterpret_cast<Bytef*>(chunk);
    stream.avail_out = static_cast<uInt>(std::min(sizeof(chunk), cap - decoded));
    const uInt room = stream.avail_out;
    result = inflate(&stream, Z_NO_FLUSH);
    const size_t produced = room - stream.avail_out;
    decoded += produced;
    if (produced > 0) reading = reader->Feed(std::string_view(chunk, produced), false);
    if (result == Z_STREAM_END && stream.avail_in > 0 &&
        IsGzip({reinterpret_cast<const char*>(stream.next_in), stream.avail_in})) {
      inflateReset(&stream);  // another gzip member follows
      continue;
    }
    if (result != Z_OK) break;
    if (stream.avail_in == 0 && stream.avail_out != 0) break;  // input ended mid-stream
  }
  inflateEnd(&stream);
  if (!reading) return absl::OkStatus();  // the reader stopped: its Finish says why
  if (decoded >= cap) {
    *truncated = true;
  } else if (result != Z_STREAM_END) {
    if (decoded == 0) return absl::InvalidArgumentError("sitemap: corrupt gzip data");
    *truncated = true;  // keep what inflated before the damage
  } else {
    reader->Feed({}, true);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Sitemap> ParseSitemap(std::string_view body, const SitemapLimits& limits) {
  Sitemap map;
  SitemapXml reader(limits.max_urls, &map);
  if (IsGzip(body)) {
    map.gzipped = true;
    absl::Status inflated = GunzipInto(body, limits.max_decoded_bytes, &reader, &map.truncated);
    if (!inflated.ok()) return inflated;
  } else if (body.size() > limits.max_decoded_bytes) {
    reader.Feed(body.substr(0, limits.max_decoded_bytes), false);
    map.truncated = true;
  } else {
    reader.Feed(body, true);
  }
  absl::Status read = reader.Finish();
  if (!read.ok()) return read;
  return map;
}

}  // namespace crawler
