#include "zstd_streambuf.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>

namespace sieve::internal {
namespace {

constexpr size_t kChunk = size_t{1} << 20;

}  // namespace

bool IsZstdFrame(const std::string& head) {
  static constexpr unsigned char kMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};  // ZSTD_MAGICNUMBER, LE
  return head.size() >= 4 && std::memcmp(head.data(), kMagic, 4) == 0;
}

ZstdWriteBuf::ZstdWriteBuf(std::streambuf* sink, int level)
    : sink_(sink), context_(ZSTD_createCCtx()), in_(kChunk), out_(ZSTD_CStreamOutSize()) {
  failed_ = context_ == nullptr ||
            ZSTD_isError(ZSTD_CCtx_setParameter(context_, ZSTD_c_compressionLevel, level));
  setp(in_.data(), in_.data() + in_.size());
}

ZstdWriteBuf::~ZstdWriteBuf() { ZSTD_freeCCtx(context_); }

ZstdWriteBuf::int_type ZstdWriteBuf::overflow(int_type ch) {
  if (!Drain(false)) return traits_type::eof();
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  *pptr() = traits_type::to_char_type(ch);
  pbump(1);
  return ch;
}

bool ZstdWriteBuf::Drain(bool end) {
  if (failed_) return false;
  const size_t pending = static_cast<size_t>(pptr() - pbase());
  raw_bytes_ += pending;
  ZSTD_inBuffer input = {in_.data(), pending, 0};
  const ZSTD_EndDirective mode = end ? ZSTD_e_end : ZSTD_e_continue;
  for (;;) {
    ZSTD_outBuffer output = {out_.data(), out_.size(), 0};
    const size_t left = ZSTD_compressStream2(context_, &output, &input, mode);
    if (ZSTD_isError(left)) return !(failed_ = true);
    const auto bytes = static_cast<std::streamsize>(output.pos);
    if (bytes > 0 && sink_->sputn(out_.data(), bytes) != bytes) return !(failed_ = true);
    // Done once the input is taken and, when ending, the frame is flushed.
    if (input.pos == input.size && (!end || left == 0)) break;
  }
  setp(in_.data(), in_.data() + in_.size());
  return true;
}

bool ZstdWriteBuf::Finish() { return Drain(true); }

ZstdReadBuf::ZstdReadBuf(std::streambuf* source)
    : source_(source), context_(ZSTD_createDCtx()), in_(ZSTD_DStreamInSize()), out_(kChunk) {
  failed_ = context_ == nullptr;
  setg(out_.data(), out_.data(), out_.data());
}

ZstdReadBuf::~ZstdReadBuf() { ZSTD_freeDCtx(context_); }

size_t ZstdReadBuf::Decompress(char* into, size_t room) {
  while (!failed_) {
    if (in_pos_ == in_size_) {
      in_size_ = static_cast<size_t>(std::max<std::streamsize>(
          0, source_->sgetn(in_.data(), static_cast<std::streamsize>(in_.size()))));
      in_pos_ = 0;
      if (in_size_ == 0) {
        failed_ = frame_left_ != 0;  // the data ended inside a frame
        return 0;
      }
    }
    ZSTD_inBuffer input = {in_.data(), in_size_, in_pos_};
    ZSTD_outBuffer output = {into, room, 0};
    frame_left_ = ZSTD_decompressStream(context_, &output, &input);
    in_pos_ = input.pos;
    if (ZSTD_isError(frame_left_)) {
      failed_ = true;
      return 0;
    }
    if (output.pos > 0) {
      raw_bytes_ += output.pos;
      return output.pos;
    }
  }
  return 0;
}

ZstdReadBuf::int_type ZstdReadBuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  const size_t got = Decompress(out_.data(), out_.size());
  setg(out_.data(), out_.data(), out_.data() + got);
  return got == 0 ? traits_type::eof() : traits_type::to_int_type(*gptr());
}

std::string ZstdReadBuf::Peek(size_t n) {
  n = std::min(n, out_.size());
  while (static_cast<size_t>(egptr() - gptr()) < n) {
    const size_t have = static_cast<size_t>(egptr() - gptr());
    std::memmove(out_.data(), gptr(), have);
    const size_t got = Decompress(out_.data() + have, out_.size() - have);
    setg(out_.data(), out_.data(), out_.data() + have + got);
    if (got == 0) break;
  }
  return std::string(gptr(), std::min(n, static_cast<size_t>(egptr() - gptr())));
}

}  // namespace sieve::internal
