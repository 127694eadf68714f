#include "raw_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace testsite {
namespace {

// A request head longer than this is not ours: a test client sends ~200 bytes.
constexpr size_t kMaxHead = 16 << 10;
// How often the accept loop looks at `stopping_`.
constexpr int kPollMs = 50;

// Reads until the blank line that ends the head; false on EOF, error or junk.
bool ReadHead(int fd, std::string* head) {
  char buf[2048];
  while (head->find("\r\n\r\n") == std::string::npos) {
    if (head->size() > kMaxHead) return false;
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return false;
    head->append(buf, static_cast<size_t>(n));
  }
  return true;
}

RawRequest ParseHead(const std::string& head, int remote_port) {
  RawRequest request;
  request.remote_port = remote_port;
  std::vector<absl::string_view> lines = absl::StrSplit(head, "\r\n");
  std::vector<absl::string_view> first = absl::StrSplit(lines[0], ' ');
  if (first.size() >= 2) {
    request.method = std::string(first[0]);
    request.target = std::string(first[1]);
    request.path = request.target.substr(0, request.target.find('?'));
  }
  for (absl::string_view line : lines) {
    if (absl::StartsWithIgnoreCase(line, "user-agent:")) {
      request.user_agent = std::string(absl::StripAsciiWhitespace(line.substr(11)));
    }
  }
  return request;
}

}  // namespace

bool SendAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

RawServer::RawServer(std::string host, Handler handler)
    : host_(std::move(host)), handler_(std::move(handler)) {}

RawServer::~RawServer() { Stop(); }

absl::Status RawServer::Listen() {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return absl::InternalError("raw server: socket() failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = 0;
  if (::inet_pton(AF_INET, host_.c_str(), &address.sin_addr) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("raw server: not an IPv4 address: ", host_));
  }
  socklen_t length = sizeof(address);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::listen(listen_fd_, 128) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    return absl::UnavailableError(absl::StrCat("raw server: cannot listen on ", host_));
  }
  port_ = ntohs(address.sin_port);
  return absl::OkStatus();
}

void RawServer::Start() {
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

void RawServer::AcceptLoop() {
  while (!stopping_.load()) {
    pollfd ready{listen_fd_, POLLIN, 0};
    if (::poll(&ready, 1, kPollMs) <= 0) continue;
    sockaddr_in peer{};
    socklen_t length = sizeof(peer);
    const int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &length, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_.load()) {
      ::close(fd);
      break;
    }
    open_fds_.insert(fd);
    const int remote_port = ntohs(peer.sin_port);
    connections_.emplace_back([this, fd, remote_port] { Serve(fd, remote_port); });
  }
}

void RawServer::Serve(int fd, int remote_port) {
  std::string head;
  Ending ending = kClose;
  if (ReadHead(fd, &head)) ending = handler_(fd, ParseHead(head, remote_port));
  if (ending == kReset) {  // SO_LINGER 0: close() sends an RST instead of a FIN
    const linger reset{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
  }
  // Under the lock, so Stop never shuts down a number the kernel reused.
  std::lock_guard<std::mutex> lock(mu_);
  open_fds_.erase(fd);
  ::close(fd);
}

void RawServer::Stop() {
  if (stopping_.exchange(true)) return;
  if (accept_thread_.joinable()) accept_thread_.join();
  std::list<std::thread> connections;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Wakes handlers blocked in send() or recv(); they then fail and return.
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
    connections.swap(connections_);
  }
  for (std::thread& connection : connections) connection.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
}

}  // namespace testsite
