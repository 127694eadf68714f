#include "loopback_only.h"

#include <linux/filter.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <iterator>

#include "absl/strings/str_cat.h"

namespace testsite {

absl::Status RestrictToLoopback(int fd) {
  static constexpr char kDevice[] = "lo";
  if (::setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, kDevice, sizeof(kDevice)) != 0) {
    return absl::UnavailableError(
        absl::StrCat("testsite: SO_BINDTODEVICE \"lo\" refused: ", std::strerror(errno)));
  }
  // A TCP socket's filter sees the segment with the IP header before it, at
  // SKF_NET_OFF; the destination address is the IPv4 header's bytes 16-19.
  // Returning 0 drops the packet, 0xffffffff keeps all of it.
  sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, static_cast<uint32_t>(SKF_NET_OFF + 16)),
      BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff000000u),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x7f000000u, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, 0xffffffffu),
      BPF_STMT(BPF_RET | BPF_K, 0),
  };
  sock_fprog program{static_cast<unsigned short>(std::size(code)), code};
  if (::setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof(program)) != 0) {
    return absl::UnavailableError(
        absl::StrCat("testsite: SO_ATTACH_FILTER (127/8 only) refused: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace testsite
