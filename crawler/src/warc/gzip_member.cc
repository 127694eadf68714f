#include "warc/gzip_member.h"

#include <libdeflate.h>

#include <memory>

#include "absl/strings/str_cat.h"

namespace crawler::warc_internal {
namespace {

// libdeflate, not zlib: it compresses a whole buffer at once, which is what
// a record is, and at level 1 runs ~1.8x faster than zlib's level 1 for
// about the same size (testsite crawl: zlib was a seventh of the crawl's CPU
// with --warc). Its output is a standard gzip member (RFC 1952).
//
// One compressor per thread and level (stored, and the configured one), kept for the thread's life:
// building one allocates a few hundred KB of match-finder state, and allocating and freeing that
// per record churned glibc's per-thread heaps (each free trimmed them with madvise, a TLB shootdown
// on every core, and fresh pages faulted back in): 3.6x the crawl's system time with zlib's
// deflateInit2/deflateEnd.
struct FreeCompressor {
  void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};
using Compressor = std::unique_ptr<libdeflate_compressor, FreeCompressor>;

// Levels are 0..12 in libdeflate; the caller checked `level`.
libdeflate_compressor* ThreadCompressor(int level) {
  thread_local Compressor compressors[13];
  if (level < 0 || level > 12) return nullptr;
  Compressor& compressor = compressors[level];
  if (compressor == nullptr) compressor.reset(libdeflate_alloc_compressor(level));
  return compressor.get();
}

// Records shorter than this are stored (deflate level 0), not compressed.
// Level 1 has a fixed cost per member, clearing its 128 KB hash table: a
// 530-byte request record took ~16 us, half of what a 5.3 KB page's response
// record took (31 us, microbenchmark on the loaded 2-core box), to save
// ~170 bytes. A request record is every page's smallest third of that cost.
constexpr size_t kStoreBelowBytes = 1024;

}  // namespace

absl::Status AppendGzipMember(absl::string_view data, int level, std::string* out) {
  if (data.size() < kStoreBelowBytes) level = 0;
  libdeflate_compressor* compressor = ThreadCompressor(level);
  if (compressor == nullptr) {
    return absl::InternalError(absl::StrCat("cannot make a deflate compressor at level ", level));
  }
  const size_t start = out->size();
  out->resize(start + libdeflate_gzip_compress_bound(compressor, data.size()));
  // Within the bound, compression cannot run out of room: 0 means a bug.
  const size_t written = libdeflate_gzip_compress(compressor, data.data(), data.size(),
                                                  out->data() + start, out->size() - start);
  out->resize(start + written);
  if (written == 0) return absl::InternalError("gzip compression failed");
  return absl::OkStatus();
}

}  // namespace crawler::warc_internal
