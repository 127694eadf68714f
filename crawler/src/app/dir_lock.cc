#include "app/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace crawler {
namespace {

// The PID holding a flock on inode `inode`, from /proc/locks lines such as
// "3: FLOCK  ADVISORY  WRITE 4242 08:01:1311 0 EOF"; 0 when not found.
long HolderOf(ino_t inode) {
  std::ifstream locks("/proc/locks");
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream fields(line);
    std::string id, type, advisory, mode, device;
    long pid = 0;
    if (!(fields >> id >> type) || type != "FLOCK") continue;
    if (!(fields >> advisory >> mode >> pid >> device)) continue;
    const size_t colon = device.rfind(':');
    if (colon == std::string::npos) continue;
    if (device.substr(colon + 1) == std::to_string(inode)) return pid;
  }
  return 0;
}

}  // namespace

absl::StatusOr<std::unique_ptr<DirLock>> DirLock::Acquire(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    const std::string why = ec.message();
    // Name the directory that refused (the deepest one that exists), not
    // the missing one below it: "No such file" sent users looking in the
    // wrong place.
    std::filesystem::path refused = std::filesystem::absolute(dir, ec).parent_path();
    while (refused.has_relative_path() && !std::filesystem::exists(refused, ec)) {
      refused = refused.parent_path();
    }
    return absl::InvalidArgumentError(
        absl::StrCat("cannot create directory ", dir, ": ", why, " in ", refused.string()));
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write in directory ", dir, ": ", std::strerror(errno)));
  }
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot open directory ", dir, ": ", std::strerror(errno)));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return std::unique_ptr<DirLock>(new DirLock(fd));
  const int error = errno;
  struct stat st {};
  const long holder = error == EWOULDBLOCK && ::fstat(fd, &st) == 0 ? HolderOf(st.st_ino) : 0;
  ::close(fd);
  if (error != EWOULDBLOCK) {
    return absl::UnavailableError(absl::StrCat("cannot lock ", dir, ": ", std::strerror(error)));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(dir, " is in use by another crawl (",
                   holder > 0 ? absl::StrCat("PID ", holder) : std::string("another process"),
                   "); wait for it to end or choose another directory"));
}

DirLock::~DirLock() { ::close(fd_); }

}  // namespace crawler
