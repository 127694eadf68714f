#include "descriptor_io.h"

#include <unistd.h>

// Compiled in, as in bloom: no link dependency on libxxhash (CrawlLibrary.cmake).
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace sieve::internal {
namespace {

constexpr size_t kBufferBytes = size_t{1} << 20;  // HashingWriteBuf's

}  // namespace

absl::Status ErrnoError(std::string_view what, const std::filesystem::path& path) {
  const int error = errno;
  const std::string message = absl::StrCat(absl::string_view(what.data(), what.size()), " ",
                                           path.string(), ": ", std::strerror(error));
  if (error == ENOSPC || error == EDQUOT || error == EFBIG) {
    return absl::ResourceExhaustedError(message);
  }
  return absl::InternalError(message);
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

bool Fd::Close() {
  const int fd = fd_;
  fd_ = -1;
  return ::close(fd) == 0;
}

bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

struct HashingWriteBuf::HashState {
  HashState() : state(XXH3_createState()) { XXH3_64bits_reset(state); }
  ~HashState() { XXH3_freeState(state); }
  HashState(const HashState&) = delete;
  HashState& operator=(const HashState&) = delete;
  XXH3_state_t* state;
};

HashingWriteBuf::HashingWriteBuf(int fd)
    : fd_(fd), buffer_(new char[kBufferBytes]), state_(std::make_unique<HashState>()) {
  setp(buffer_.get(), buffer_.get() + kBufferBytes);
}

HashingWriteBuf::~HashingWriteBuf() = default;

uint64_t HashingWriteBuf::digest() const { return XXH3_64bits_digest(state_->state); }

HashingWriteBuf::int_type HashingWriteBuf::overflow(int_type ch) {
  if (!Flush()) return traits_type::eof();
  if (!traits_type::eq_int_type(ch, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(ch);
    pbump(1);
  }
  return traits_type::not_eof(ch);
}

bool HashingWriteBuf::Flush() {
  const size_t size = static_cast<size_t>(pptr() - pbase());
  if (!failed_) {
    XXH3_64bits_update(state_->state, pbase(), size);
    bytes_ += size;
    if (!WriteAll(fd_, pbase(), size)) failed_ = true;
  }
  setp(buffer_.get(), buffer_.get() + kBufferBytes);
  return !failed_;
}

}  // namespace sieve::internal
