// Descriptor-level I/O shared by the Sieve's files (file_io.cc: checkpoint
// and segment files; filter_checkpoint.cc: the filter's chain): an owned
// descriptor, errno errors that tell a full disk from a bug, and a buffered
// output that hashes and counts what it writes.
#ifndef CRAWL_SIEVE_SRC_DESCRIPTOR_IO_H_
#define CRAWL_SIEVE_SRC_DESCRIPTOR_IO_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <streambuf>
#include <string_view>

#include "absl/status/status.h"

namespace sieve::internal {

// errno (read at the call) as a Status naming `what` and the file: a full
// disk, a quota or a file-size limit is ResourceExhausted, so an owner can
// tell it from a bug; everything else Internal.
absl::Status ErrnoError(std::string_view what, const std::filesystem::path& path);

// Closes the descriptor on scope exit.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd();
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // Closes now and reports the error close(2) may carry (deferred write errors).
  bool Close();

 private:
  int fd_;
};

// write(2) until done, through EINTR; false on any other error.
bool WriteAll(int fd, const char* data, size_t size);

// An output streambuf over a descriptor, through a 1 MiB buffer, that hashes
// (XXH3-64) and counts every byte it writes. A failed write sticks:
// failed() stays true and the stream goes bad.
class HashingWriteBuf : public std::streambuf {
 public:
  explicit HashingWriteBuf(int fd);
  ~HashingWriteBuf() override;
  bool failed() const { return failed_; }
  uint64_t bytes() const { return bytes_; }
  uint64_t digest() const;

 protected:
  int_type overflow(int_type ch) override;
  int sync() override { return Flush() ? 0 : -1; }

 private:
  struct HashState;  // xxHash's, compiled into the .cc only (XXH_INLINE_ALL)
  bool Flush();

  int fd_;
  // Uninitialized: a zeroed MiB was 256 page faults and a memset for every
  // file of every checkpoint, most of which write a few KiB.
  std::unique_ptr<char[]> buffer_;
  std::unique_ptr<HashState> state_;
  uint64_t bytes_ = 0;
  bool failed_ = false;
};

}  // namespace sieve::internal

#endif  // CRAWL_SIEVE_SRC_DESCRIPTOR_IO_H_
