#include "state/state_files.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace crawler::state_internal {
namespace {

absl::Status Errno(absl::string_view what, const std::filesystem::path& path) {
  return absl::UnavailableError(absl::StrCat(what, " ", path.string(), ": ", std::strerror(errno)));
}

absl::Status SyncPath(const std::filesystem::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open", path);
  const int synced = ::fsync(fd);
  const int saved_errno = errno;
  ::close(fd);
  errno = saved_errno;
  return synced == 0 ? absl::OkStatus() : Errno("fsync", path);
}

}  // namespace

absl::Status WriteFileSynced(const std::filesystem::path& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot create", path);
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const absl::Status error = Errno("write", path);
      ::close(fd);
      return error;
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const absl::Status error = Errno("fsync", path);
    ::close(fd);
    return error;
  }
  if (::close(fd) != 0) return Errno("close", path);
  return absl::OkStatus();
}

absl::Status ReplaceFileAtomically(const std::filesystem::path& path, std::string_view bytes) {
  std::filesystem::path temporary = path;
  temporary += ".tmp";
  absl::Status written = WriteFileSynced(temporary, bytes);
  if (!written.ok()) return written;
  if (std::rename(temporary.c_str(), path.c_str()) != 0) return Errno("rename to", path);
  return SyncDirectory(path.parent_path());
}

absl::Status SyncDirectory(const std::filesystem::path& dir) {
  return SyncPath(dir.empty() ? std::filesystem::path(".") : dir, O_RDONLY | O_DIRECTORY);
}

absl::Status SyncFile(const std::filesystem::path& path) { return SyncPath(path, O_RDONLY); }

absl::StatusOr<std::string> ReadWholeFile(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return absl::NotFoundError(absl::StrCat(path.string(), ": missing"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Errno("cannot read", path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return Errno("cannot read", path);
  return std::move(bytes).str();
}

uint32_t Crc32(std::string_view bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths: feed large inputs in pieces.
  constexpr size_t kPiece = 1u << 30;
  for (size_t at = 0; at < bytes.size(); at += kPiece) {
    const size_t n = std::min(kPiece, bytes.size() - at);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + at), static_cast<uInt>(n));
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace crawler::state_internal
