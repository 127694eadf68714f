// A host queue's batch (format v4, queue_batch.h) deflated, for frontiers
// created with packed batches (NAME:meta ends with kPackedMetaField): the
// list element is then
//
//   byte    5                   kPackedVersion
//   varint  the v4 batch's length
//   bytes   the v4 batch (version byte included), raw DEFLATE (RFC 1951,
//           zlib level kPackLevel, a 8 KiB window, no preset dictionary)
//
// The crawlsieve module's CRAWLSIEVE.PACK / CRAWLSIEVE.UNPACK (pack_command.h)
// run these two functions for the Lua scripts (sieve/src/redis/scripts.cc),
// and CRAWLSIEVE.PUSH (host_enqueue.cc) calls them directly: one definition,
// so both push paths write the same bytes (tests/sieve/redis/
// queue_batch_test.cc freezes them). A v4 element stays readable in a packed
// frontier: PackBatch keeps a batch deflate would not shorten, and a pop
// writes a partly taken head batch back unpacked (docs/redis.md).
//
// Why: deflate of a host's batch finds what front coding cannot (the
// generator's path words, query keys, repeated tails): 53 -> 24 bytes per
// URL at bench/sieve's URL mix with 4 KiB batches (docs/redis.md). No
// preset dictionary: one built from generic links saved 0.5 B/URL (2%) and
// costs a 32 KiB dictionary load per call.
//
//   std::string element = crawlsieve_wire::PackBatch(batch);
//   std::string again;
//   crawlsieve_wire::UnpackElement(element, again);  // true, again == batch
//
// Threading: safe from any thread (each thread keeps its own zlib streams).
#ifndef SIEVE_REDIS_MODULE_SRC_BATCH_CODEC_H_
#define SIEVE_REDIS_MODULE_SRC_BATCH_CODEC_H_

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "queue_batch.h"

namespace crawlsieve_wire {

inline constexpr unsigned char kPackedVersion = 5;
// NAME:meta of a frontier whose batches are packed ends with this field.
inline constexpr char kPackedMetaField[] = " queue=deflate";
// A packed frontier's batches grow to 4 KiB before deflate (~1.8 KiB
// after): 24.3 bytes/URL of content against 26.7 at 2 KiB (fewer bases,
// longer matches), and still four elements to an 8 KiB quicklist node.
inline constexpr size_t kMaxPackedBatchBytes = 4096;
// Redis's cap on a string (proto-max-bulk-len's default).
inline constexpr uint64_t kMaxElementBytes = uint64_t{512} << 20;
// Level 6 (zlib's default): 9 gave the same size on this mix, ~1.5x slower.
inline constexpr int kPackLevel = 6;
// 2^13 = 8 KiB window: covers a whole batch; smaller state to reset per call.
inline constexpr int kPackWindowBits = 13;
inline constexpr int kPackMemLevel = 6;

// The zlib streams of this thread, made once and reset per call: an init
// per call would allocate and clear the state every time.
class BatchZlib {
 public:
  static BatchZlib& ForThisThread() {
    thread_local BatchZlib zlib;
    return zlib;
  }
  z_stream* Deflater() {
    if (!deflate_ok_) {
      deflate_ok_ = deflateInit2(&deflater_, kPackLevel, Z_DEFLATED, -kPackWindowBits,
                                 kPackMemLevel, Z_DEFAULT_STRATEGY) == Z_OK;
    } else {
      deflateReset(&deflater_);
    }
    return deflate_ok_ ? &deflater_ : nullptr;
  }
  z_stream* Inflater() {
    if (!inflate_ok_) {
      inflate_ok_ = inflateInit2(&inflater_, -15) == Z_OK;  // any window a stream may use
    } else {
      inflateReset(&inflater_);
    }
    return inflate_ok_ ? &inflater_ : nullptr;
  }
  ~BatchZlib() {
    if (deflate_ok_) deflateEnd(&deflater_);
    if (inflate_ok_) inflateEnd(&inflater_);
  }

 private:
  BatchZlib() = default;
  z_stream deflater_{};
  z_stream inflater_{};
  bool deflate_ok_ = false;
  bool inflate_ok_ = false;
};

// The element to store for v4 batch `batch`: packed, or `batch` itself if
// deflate would not make it shorter (or `batch` is not a v4 batch).
inline std::string PackBatch(std::string_view batch) {
  if (batch.empty() || static_cast<unsigned char>(batch[0]) != kBatchVersion) {
    return std::string(batch);
  }
  z_stream* z = BatchZlib::ForThisThread().Deflater();
  if (z == nullptr) return std::string(batch);
  std::string out(1, static_cast<char>(kPackedVersion));
  AppendVarint(out, batch.size());
  const size_t header = out.size();
  out.resize(header + deflateBound(z, batch.size()));
  z->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(batch.data()));
  z->avail_in = static_cast<uInt>(batch.size());
  z->next_out = reinterpret_cast<Bytef*>(out.data() + header);
  z->avail_out = static_cast<uInt>(out.size() - header);
  if (deflate(z, Z_FINISH) != Z_STREAM_END) return std::string(batch);
  out.resize(out.size() - z->avail_out);
  if (out.size() >= batch.size()) return std::string(batch);
  return out;
}

// The v4 batch of a packed element into `batch`; false if `element` is not
// a well-formed packed element (wrong version byte, a stream that ends
// before or after the stated length, or inflates to something not v4).
inline bool UnpackElement(std::string_view element, std::string& batch) {
  batch.clear();
  if (element.empty() || static_cast<unsigned char>(element[0]) != kPackedVersion) return false;
  size_t pos = 1;
  uint64_t length = 0;
  // A batch exceeds kMaxPackedBatchBytes only by its one URL (a batch
  // always takes its first entry); Redis's string cap bounds the buffer a
  // damaged length could ask for.
  if (!ReadVarint(element, pos, length) || length == 0 || length > kMaxElementBytes) return false;
  z_stream* z = BatchZlib::ForThisThread().Inflater();
  if (z == nullptr) return false;
  batch.resize(length + 1);  // one byte more: a stream longer than stated fills it
  z->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(element.data() + pos));
  z->avail_in = static_cast<uInt>(element.size() - pos);
  z->next_out = reinterpret_cast<Bytef*>(batch.data());
  z->avail_out = static_cast<uInt>(batch.size());
  const int done = inflate(z, Z_FINISH);
  if (done != Z_STREAM_END || z->avail_in != 0 || z->avail_out != 1) {
    batch.clear();
    return false;
  }
  batch.resize(length);
  if (static_cast<unsigned char>(batch[0]) != kBatchVersion) {
    batch.clear();
    return false;
  }
  return true;
}

// The v4 batch an element holds: itself, or unpacked; false if neither.
inline bool BatchOfElement(std::string_view element, std::string& batch) {
  if (!element.empty() && static_cast<unsigned char>(element[0]) == kPackedVersion) {
    return UnpackElement(element, batch);
  }
  std::string_view base;
  size_t pos = 0;
  if (!ReadBatchHeader(element, base, pos)) return false;
  batch.assign(element);
  return true;
}

}  // namespace crawlsieve_wire

#endif  // SIEVE_REDIS_MODULE_SRC_BATCH_CODEC_H_
