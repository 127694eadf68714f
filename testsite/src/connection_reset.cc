#include "connection_reset.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

namespace testsite {
namespace {

bool SameEndpoint(const sockaddr_in& address, const std::string& ip, int port) {
  in_addr wanted{};
  return address.sin_family == AF_INET && ::inet_pton(AF_INET, ip.c_str(), &wanted) == 1 &&
         address.sin_addr.s_addr == wanted.s_addr && ntohs(address.sin_port) == port;
}

bool IsConnection(int fd, const std::string& local_addr, int local_port,
                  const std::string& remote_addr, int remote_port) {
  sockaddr_in local{};
  sockaddr_in peer{};
  socklen_t local_size = sizeof(local);
  socklen_t peer_size = sizeof(peer);
  return ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_size) == 0 &&
         local_size == sizeof(local) &&
         ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_size) == 0 &&
         peer_size == sizeof(peer) && SameEndpoint(local, local_addr, local_port) &&
         SameEndpoint(peer, remote_addr, remote_port);
}

// The descriptor of the connection, or -1. /proc/self/fd lists only open
// descriptors, a few hundred at most in a test site.
int FindConnection(const std::string& local_addr, int local_port, const std::string& remote_addr,
                   int remote_port) {
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int found = -1;
  while (const dirent* entry = ::readdir(dir)) {
    const int fd = std::atoi(entry->d_name);
    if (fd <= STDERR_FILENO || fd == ::dirfd(dir)) continue;
    if (IsConnection(fd, local_addr, local_port, remote_addr, remote_port)) {
      found = fd;
      break;
    }
  }
  ::closedir(dir);
  return found;
}

}  // namespace

bool ResetConnection(const std::string& local_addr, int local_port, const std::string& remote_addr,
                     int remote_port) {
  const int fd = FindConnection(local_addr, local_port, remote_addr, remote_port);
  if (fd < 0) return false;
  const linger abort_on_close{1, 0};
  if (::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof(abort_on_close)) != 0) {
    return false;
  }
  const int fresh = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fresh < 0) return false;
  const bool swapped = ::dup2(fresh, fd) == fd;  // closes the connection: RST
  ::close(fresh);
  return swapped;
}

}  // namespace testsite
