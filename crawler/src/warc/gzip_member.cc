#include "warc/gzip_member.h"

#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"

namespace crawler::warc_internal {
namespace {

// ISA-L's igzip, not libdeflate or zlib: at its level 0 it gzips a 6 KB
// testsite response record in ~8 us of CPU, against ~24 us for libdeflate's
// level 1 and ~41 us for zlib's (microbenchmark, same record, same box), for
// ~16% more bytes than libdeflate (2183 vs 1877: level 0 codes with a fixed
// Huffman table instead of one built per block). Deflate was the largest
// part of archiving a page (a seventh of the crawl's CPU with --warc). The
// output is a standard gzip member (RFC 1952); every reader inflates it.
//
// Levels 1..3 keep a match-finder buffer (86 KB to 348 KB) that each call
// re-initializes (~4 us of fixed cost on a small record): it is allocated
// once per thread, never per record. Level 0 needs none.
int IgzipLevel(int level) { return std::clamp(level - 1, 0, 3); }

size_t LevelBufferBytes(int igzip_level) {
  switch (igzip_level) {
    case 0:
      return 0;
    case 1:
      return ISAL_DEF_LVL1_DEFAULT;
    case 2:
      return ISAL_DEF_LVL2_DEFAULT;
    default:
      return ISAL_DEF_LVL3_DEFAULT;
  }
}

uint8_t* ThreadLevelBuffer(int igzip_level) {
  thread_local std::vector<uint8_t> buffers[4];
  std::vector<uint8_t>& buffer = buffers[igzip_level];
  if (buffer.size() < LevelBufferBytes(igzip_level)) buffer.resize(LevelBufferBytes(igzip_level));
  return buffer.empty() ? nullptr : buffer.data();
}

// Stateless compression needs room for everything at once: the worst case is
// stored blocks (5 bytes per 64 KiB) plus the gzip header and trailer.
size_t CompressBound(size_t size) { return size + 5 * (size / 65535 + 1) + 18 + 256; }

// igzip's output buffer, per thread and kept: sizing `out` to the bound
// instead zero-filled ~6 KB per record (std::string::resize) to keep ~2 KB.
// A buffer grown past 1 MiB by a large record is given back afterwards.
std::string& ThreadScratch(size_t bytes) {
  thread_local std::string scratch;
  constexpr size_t kKeepBytes = 1 << 20;
  if (scratch.size() > kKeepBytes && bytes <= kKeepBytes) std::string().swap(scratch);
  if (scratch.size() < bytes) scratch.resize(bytes);
  return scratch;
}

}  // namespace

absl::Status AppendGzipMember(absl::string_view data, int level, std::string* out) {
  // igzip counts in 32 bits; --max-body keeps a record far below that.
  if (data.size() > (uint32_t{1} << 31)) {
    return absl::InvalidArgumentError("WARC record over 2 GiB cannot be gzipped in one member");
  }
  const int igzip_level = IgzipLevel(level);
  isal_zstream stream;
  isal_deflate_stateless_init(&stream);
  stream.level = static_cast<uint32_t>(igzip_level);
  stream.level_buf = ThreadLevelBuffer(igzip_level);
  stream.level_buf_size = static_cast<uint32_t>(LevelBufferBytes(igzip_level));
  stream.gzip_flag = IGZIP_GZIP;
  stream.end_of_stream = 1;
  stream.flush = NO_FLUSH;
  // igzip reads but never writes the input.
  stream.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uint32_t>(data.size());
  std::string& scratch = ThreadScratch(CompressBound(data.size()));
  stream.next_out = reinterpret_cast<uint8_t*>(scratch.data());
  stream.avail_out = static_cast<uint32_t>(scratch.size());
  const int result = isal_deflate_stateless(&stream);
  if (result != COMP_OK || stream.avail_in != 0) {
    return absl::InternalError(absl::StrCat("gzip compression failed (igzip error ", result, ")"));
  }
  out->append(scratch.data(), stream.total_out);
  return absl::OkStatus();
}

}  // namespace crawler::warc_internal
