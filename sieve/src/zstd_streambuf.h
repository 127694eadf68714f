// zstd streams over std::streambuf: the filter's checkpoint deltas (bloom's
// delta format, written and read as a stream) are stored as one zstd frame
// each. A delta is mostly zero bits: at bench/scale's mix a 180 MB delta is
// 43 MB at level 1.
//
//   ZstdWriteBuf zstd(&file_buffer, kFilterZstdLevel);
//   std::ostream out(&zstd);
//   filter.Save(out);
//   if (!zstd.Finish()) ...  // the frame's end, flushed to file_buffer
//
//   ZstdReadBuf zstd(&file_buffer);
//   std::istream in(&zstd);  // zstd.Peek(8): the format's magic
//
// Threading: one thread per object.
#ifndef CRAWL_SIEVE_SRC_ZSTD_STREAMBUF_H_
#define CRAWL_SIEVE_SRC_ZSTD_STREAMBUF_H_

#include <cstddef>
#include <cstdint>
#include <streambuf>
#include <string>
#include <vector>

struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;

namespace sieve::internal {

// Level 1: a checkpoint holds the Sieve's stripe locks while it writes the
// filter, so speed comes first; on a 180 MB delta of the bench level 3 was no
// smaller (43.4 MB) and took twice the time (2.2 s vs 1.2 s, loaded box).
inline constexpr int kFilterZstdLevel = 1;

// True if `head` (a file's first bytes) opens a zstd frame.
bool IsZstdFrame(const std::string& head);

// Compresses what is written into one frame, written to `sink`.
class ZstdWriteBuf : public std::streambuf {
 public:
  ZstdWriteBuf(std::streambuf* sink, int level);
  ~ZstdWriteBuf() override;
  ZstdWriteBuf(const ZstdWriteBuf&) = delete;
  ZstdWriteBuf& operator=(const ZstdWriteBuf&) = delete;
  // Ends the frame and hands all of it to the sink (not synced); false if
  // compressing or the sink failed, now or before.
  bool Finish();
  uint64_t raw_bytes() const { return raw_bytes_; }  // bytes written in

 protected:
  int_type overflow(int_type ch) override;

 private:
  // Compresses the put area; `end` closes the frame.
  bool Drain(bool end);

  std::streambuf* sink_;
  ZSTD_CCtx_s* context_;
  std::vector<char> in_;
  std::vector<char> out_;
  uint64_t raw_bytes_ = 0;
  bool failed_ = false;
};

// Decompresses the frames read from `source`; its end is the stream's end.
class ZstdReadBuf : public std::streambuf {
 public:
  explicit ZstdReadBuf(std::streambuf* source);
  ~ZstdReadBuf() override;
  ZstdReadBuf(const ZstdReadBuf&) = delete;
  ZstdReadBuf& operator=(const ZstdReadBuf&) = delete;
  // The first `n` bytes not yet read, without consuming them (fewer at the end).
  std::string Peek(size_t n);
  // True if the data was not zstd or ended inside a frame.
  bool failed() const { return failed_; }
  uint64_t raw_bytes() const { return raw_bytes_; }  // bytes decompressed so far

 protected:
  int_type underflow() override;

 private:
  // Decompresses into `into` until at least one byte came out; 0 at the end
  // or on failure.
  size_t Decompress(char* into, size_t room);

  std::streambuf* source_;
  ZSTD_DCtx_s* context_;
  std::vector<char> in_;
  size_t in_pos_ = 0;
  size_t in_size_ = 0;
  std::vector<char> out_;
  size_t frame_left_ = 0;  // zstd's hint: nonzero while a frame is open
  uint64_t raw_bytes_ = 0;
  bool failed_ = false;
};

}  // namespace sieve::internal

#endif  // CRAWL_SIEVE_SRC_ZSTD_STREAMBUF_H_
