#include "file_io.h"

#include <fcntl.h>
#include <unistd.h>

// Compiled in, as in bloom: no link dependency on libxxhash (CrawlLibrary.cmake).
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <streambuf>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "descriptor_io.h"

namespace sieve::internal {
namespace {

namespace fs = std::filesystem;
constexpr size_t kIoChunk = 1 << 20;

// Reads up to `size` bytes; returns the count read (short only at end of file) or -1.
ssize_t ReadUpTo(int fd, char* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

// An input streambuf over the first `limit` bytes of a descriptor.
class LimitedReadBuf : public std::streambuf {
 public:
  LimitedReadBuf(int fd, uint64_t limit)
      : fd_(fd), limit_(limit), left_(limit), buffer_(kIoChunk) {}

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (left_ == 0) return traits_type::eof();
    const size_t want = static_cast<size_t>(std::min<uint64_t>(left_, buffer_.size()));
    const ssize_t got = ReadUpTo(fd_, buffer_.data(), want);
    if (got <= 0) return traits_type::eof();
    left_ -= static_cast<uint64_t>(got);
    setg(buffer_.data(), buffer_.data(), buffer_.data() + got);
    return traits_type::to_int_type(*gptr());
  }
  // Seeking within [0, limit]: the Bloom filter's Load measures the input
  // (tellg, seekg to the end and back) before it allocates.
  pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode) override {
    const off_type here = static_cast<off_type>(limit_ - left_) - (egptr() - gptr());
    const off_type base = dir == std::ios_base::beg   ? 0
                          : dir == std::ios_base::cur ? here
                                                      : static_cast<off_type>(limit_);
    return SeekTo(base + off);
  }
  pos_type seekpos(pos_type pos, std::ios_base::openmode) override {
    return SeekTo(static_cast<off_type>(pos));
  }

 private:
  pos_type SeekTo(off_type target) {
    if (target < 0 || static_cast<uint64_t>(target) > limit_) return pos_type(off_type(-1));
    // Inside the buffered window (always so for tellg): move the read pointer only.
    const off_type window_end = static_cast<off_type>(limit_ - left_);
    const off_type window_start = window_end - (egptr() - eback());
    if (target >= window_start && target <= window_end) {
      setg(eback(), eback() + (target - window_start), egptr());
      return pos_type(target);
    }
    if (::lseek(fd_, target, SEEK_SET) != target) return pos_type(off_type(-1));
    left_ = limit_ - static_cast<uint64_t>(target);
    setg(buffer_.data(), buffer_.data(), buffer_.data());  // drop the buffered bytes
    return pos_type(target);
  }

  int fd_;
  uint64_t limit_;
  uint64_t left_;
  std::vector<char> buffer_;
};

// Hashes bytes [0, size) of the open file from its start.
absl::StatusOr<uint64_t> HashPrefix(int fd, uint64_t size, const fs::path& path) {
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(),
                                                                 &XXH3_freeState);
  XXH3_64bits_reset(state.get());
  std::vector<char> buffer(kIoChunk);
  while (size > 0) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(size, buffer.size()));
    if (ReadUpTo(fd, buffer.data(), want) != static_cast<ssize_t>(want)) {
      return ErrnoError("short read from", path);
    }
    XXH3_64bits_update(state.get(), buffer.data(), want);
    size -= want;
  }
  return XXH3_64bits_digest(state.get());
}

uint64_t DecodeU64(const char* p) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<uint8_t>(p[i]);
  return value;
}

void EncodeU64(uint64_t value, char* p) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

}  // namespace

absl::Status FsyncDirectory(const fs::path& dir) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError("cannot open directory", dir);
  if (::fsync(fd.get()) != 0) return ErrnoError("cannot fsync directory", dir);
  return absl::OkStatus();
}

absl::Status SyncFileSystemOf(const fs::path& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError("cannot open", path);
  if (::syncfs(fd.get()) != 0) return ErrnoError("cannot syncfs the file system of", path);
  return absl::OkStatus();
}

absl::Status FsyncFile(const fs::path& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError("cannot open", path);
  if (::fsync(fd.get()) != 0) return ErrnoError("cannot fsync", path);
  return absl::OkStatus();
}

void WriteU32(std::ostream& out, uint32_t value) {
  char bytes[4];
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<char>((value >> (8 * i)) & 0xff);
  out.write(bytes, 4);
}

void WriteU64(std::ostream& out, uint64_t value) {
  char bytes[8];
  EncodeU64(value, bytes);
  out.write(bytes, 8);
}

void WriteF64(std::ostream& out, double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  WriteU64(out, bits);
}

uint64_t BodyReader::Remaining() {
  const std::streamoff pos = in_.tellg();
  if (pos < 0) return 0;
  return body_size_ - static_cast<uint64_t>(pos);
}

absl::Status BodyReader::ReadU32(uint32_t& value) {
  char bytes[4];
  if (!in_.read(bytes, 4)) return absl::DataLossError("checkpoint body ends early");
  value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<uint8_t>(bytes[i]);
  return absl::OkStatus();
}

absl::Status BodyReader::ReadU64(uint64_t& value) {
  char bytes[8];
  if (!in_.read(bytes, 8)) return absl::DataLossError("checkpoint body ends early");
  value = DecodeU64(bytes);
  return absl::OkStatus();
}

absl::Status BodyReader::ReadF64(double& value) {
  uint64_t bits = 0;
  if (absl::Status s = ReadU64(bits); !s.ok()) return s;
  std::memcpy(&value, &bits, sizeof value);
  return absl::OkStatus();
}

absl::Status BodyReader::ReadBytes(uint64_t size, std::string& out) {
  if (size > Remaining()) {
    return absl::DataLossError(absl::StrCat("checkpoint record of ", size, " bytes overruns body"));
  }
  out.resize(static_cast<size_t>(size));
  if (!in_.read(out.data(), static_cast<std::streamsize>(size))) {
    return absl::DataLossError("checkpoint body ends early");
  }
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const fs::path& path,
                                 absl::FunctionRef<absl::Status(std::ostream&)> write_body,
                                 bool fsync_dir) {
  const fs::path temp = fs::path(path).concat(absl::StrCat(".tmp-", ::getpid()));
  Fd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) return ErrnoError("cannot create", temp);
  absl::Status status = [&]() -> absl::Status {
    HashingWriteBuf buf(fd.get());
    std::ostream out(&buf);
    if (absl::Status s = write_body(out); !s.ok()) return s;
    out.flush();
    if (buf.failed() || !out) return ErrnoError("cannot write", temp);
    char trailer[8];
    EncodeU64(buf.digest(), trailer);
    if (!WriteAll(fd.get(), trailer, sizeof trailer)) return ErrnoError("cannot write", temp);
    if (::fsync(fd.get()) != 0) return ErrnoError("cannot fsync", temp);
    if (!fd.Close()) return ErrnoError("cannot close", temp);
    if (::rename(temp.c_str(), path.c_str()) != 0) return ErrnoError("cannot rename", temp);
    if (!fsync_dir) return absl::OkStatus();
    return FsyncDirectory(path.has_parent_path() ? path.parent_path() : fs::path("."));
  }();
  if (!status.ok()) ::unlink(temp.c_str());
  return status;
}

absl::Status ReadChecksummedFile(const fs::path& path,
                                 absl::FunctionRef<absl::Status(BodyReader&)> parse_body) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError("cannot open", path);
  const off_t size = ::lseek(fd.get(), 0, SEEK_END);
  if (size < 8) {
    return absl::DataLossError(absl::StrCat(path.string(), " is truncated (", size, " bytes)"));
  }
  const uint64_t body_size = static_cast<uint64_t>(size) - 8;
  char trailer[8];
  if (::pread(fd.get(), trailer, 8, static_cast<off_t>(body_size)) != 8) {
    return ErrnoError("cannot read", path);
  }
  ::lseek(fd.get(), 0, SEEK_SET);
  absl::StatusOr<uint64_t> digest = HashPrefix(fd.get(), body_size, path);
  if (!digest.ok()) return digest.status();
  if (*digest != DecodeU64(trailer)) {
    return absl::DataLossError(absl::StrCat(
        path.string(), " is corrupted or truncated: checksum mismatch (", size, " bytes)"));
  }
  ::lseek(fd.get(), 0, SEEK_SET);
  LimitedReadBuf buf(fd.get(), body_size);
  std::istream in(&buf);
  BodyReader reader(in, body_size);
  if (absl::Status s = parse_body(reader); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(path.string(), ": ", s.message()));
  }
  if (in.peek() != std::istream::traits_type::eof()) {
    return absl::DataLossError(absl::StrCat(path.string(), " has unparsed bytes after its body"));
  }
  return absl::OkStatus();
}

absl::Status WriteWholeFile(const fs::path& path, std::string_view bytes, bool fsync) {
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) return ErrnoError("cannot create", path);
  absl::Status status = absl::OkStatus();
  if (!WriteAll(fd.get(), bytes.data(), bytes.size())) {
    status = ErrnoError("cannot write", path);
  } else if (fsync && ::fsync(fd.get()) != 0) {
    status = ErrnoError("cannot fsync", path);
  } else if (!fd.Close()) {
    status = ErrnoError("cannot close", path);
  }
  if (!status.ok()) ::unlink(path.c_str());
  return status;
}

absl::Status WriteFileDurably(const fs::path& path, std::string_view bytes) {
  const fs::path temp = fs::path(path).concat(absl::StrCat(".tmp-", ::getpid()));
  if (absl::Status s = WriteWholeFile(temp, bytes, /*fsync=*/true); !s.ok()) return s;
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    absl::Status status = ErrnoError("cannot rename", temp);
    ::unlink(temp.c_str());
    return status;
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> LinkOrCopy(const fs::path& from, const fs::path& to) {
  if (::link(from.c_str(), to.c_str()) == 0) return false;
  if (errno != EXDEV) return ErrnoError(absl::StrCat("cannot link ", from.string(), " to"), to);
  std::string bytes;
  if (absl::Status s = ReadWholeFile(from, bytes); !s.ok()) return s;
  if (absl::Status s = WriteFileDurably(to, bytes); !s.ok()) return s;
  return true;
}

absl::Status ReadWholeFile(const fs::path& path, std::string& out) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError("cannot open", path);
  const off_t size = ::lseek(fd.get(), 0, SEEK_END);
  if (size < 0) return ErrnoError("cannot seek", path);
  out.resize(static_cast<size_t>(size));
  if (::pread(fd.get(), out.data(), out.size(), 0) != size) return ErrnoError("short read", path);
  return absl::OkStatus();
}

uint64_t Checksum(std::string_view data) { return XXH3_64bits(data.data(), data.size()); }

}  // namespace sieve::internal
