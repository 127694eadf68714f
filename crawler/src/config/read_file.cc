#include "config/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "config/strings.h"

namespace crawler::config_internal {
namespace {

absl::Status CannotRead(const std::string& path, std::string_view reason) {
  return absl::InvalidArgumentError(Cat(path, ": cannot read (", reason, ")"));
}

// Closes the descriptor on every return path.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

absl::StatusOr<std::string> ReadWholeFile(const std::string& file_name, size_t max_bytes,
                                          std::string_view what) {
  if (file_name.empty()) return absl::InvalidArgumentError("empty file name");
  const bool from_stdin = file_name == "-";
  const std::string path = from_stdin ? "stdin" : file_name;
  // stdin's descriptor is duplicated, so closing ours leaves fd 0 open.
  FileDescriptor file(from_stdin ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0)
                                 : open(file_name.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.get() < 0) return CannotRead(path, std::strerror(errno));
  struct stat info;
  if (fstat(file.get(), &info) != 0) return CannotRead(path, std::strerror(errno));
  if (S_ISDIR(info.st_mode)) return CannotRead(path, "it is a directory");
  std::string bytes;
  const auto too_large = [&] {
    return absl::InvalidArgumentError(
        Cat(path, ": more than ", max_bytes >> 20, " MiB, too large for ", what));
  };
  if (S_ISREG(info.st_mode) && static_cast<uint64_t>(info.st_size) > max_bytes) return too_large();
  if (S_ISREG(info.st_mode)) bytes.reserve(static_cast<size_t>(info.st_size));
  // One read loop for regular files and pipes (e.g. --seeds /dev/stdin).
  char buffer[1 << 16];
  for (;;) {
    ssize_t got = read(file.get(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return CannotRead(path, std::strerror(errno));
    if (got == 0) break;
    bytes.append(buffer, static_cast<size_t>(got));
    if (bytes.size() > max_bytes) return too_large();
  }
  return bytes;
}

}  // namespace crawler::config_internal
