#include "crawler/fetch/nginx_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

extern char** environ;

namespace crawler::testing {
namespace {

constexpr const char* kNginx = "/usr/sbin/nginx";

// A port the kernel just handed out and released. Another process could take
// it before nginx binds; Start then fails with nginx's "Address in use".
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

bool Accepts(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string MakeTempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "crawl-nginx-XXXXXX").string();
  const char* made = ::mkdtemp(pattern.data());
  return made == nullptr ? std::string() : pattern;
}

}  // namespace

NginxServer::NginxServer(NginxOptions options) : options_(options), dir_(MakeTempDir()) {
  std::filesystem::create_directories(dir_ + "/www");
  std::filesystem::create_directories(dir_ + "/tmp");
}

NginxServer::~NginxServer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 200 && ::waitpid(pid_, &status, WNOHANG) == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (::waitpid(pid_, &status, WNOHANG) == 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
  }
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

void NginxServer::AddFile(const std::string& name, const std::string& body) {
  std::ofstream(dir_ + "/www/" + name, std::ios::binary) << body;
}

std::string NginxServer::CertFile() {
  return std::string(CRAWL_SOURCE_DIR) + "/tests/crawler/fetch/testdata/loopback-cert.pem";
}

std::string NginxServer::ConfigText() const {
  const std::string key =
      std::string(CRAWL_SOURCE_DIR) + "/tests/crawler/fetch/testdata/loopback-key.pem";
  const std::string tmp = dir_ + "/tmp";
  return absl::StrCat(
      "daemon off;\nmaster_process off;\nworker_processes 1;\n",  //
      "pid ", dir_, "/nginx.pid;\nerror_log ", ErrorLog(), " warn;\n",
      "events { worker_connections 256; }\n",  //
      "http {\n",
      "  log_format crawl '$server_protocol $request_uri $connection';\n",  //
      "  access_log ", dir_, "/access.log crawl;\n",                        //
      "  client_body_temp_path ", tmp, "/body;\n",                          //
      "  proxy_temp_path ", tmp, "/proxy;\n",                               //
      "  fastcgi_temp_path ", tmp, "/fastcgi;\n",                           //
      "  uwsgi_temp_path ", tmp, "/uwsgi;\n",                               //
      "  scgi_temp_path ", tmp, "/scgi;\n",                                 //
      "  types { text/html html; text/plain txt; }\n",                      //
      options_.gzip ? "  gzip on;\n  gzip_min_length 0;\n  gzip_types text/plain;\n" : "",
      "  server {\n",                                                                 //
      "    listen 127.0.0.1:", port_, " ssl", options_.http2 ? " http2" : "", ";\n",  //
      "    ssl_certificate ", CertFile(), ";\n    ssl_certificate_key ", key, ";\n",  //
      "    root ", dir_, "/www;\n",                                                   //
      "  }\n}\n");
}

std::string NginxServer::ErrorLog() const { return dir_ + "/error.log"; }

absl::Status NginxServer::Start() {
  if (dir_.empty()) return absl::InternalError("cannot create a temporary directory");
  if (::access(kNginx, X_OK) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(kNginx, " is missing: scripts/setup installs nginx-light"));
  }
  port_ = FreePort();
  const std::string conf = dir_ + "/nginx.conf";
  std::ofstream(conf) << ConfigText();
  const std::string error_log = ErrorLog();
  std::vector<std::string> args = {kNginx, "-p", dir_, "-c", conf, "-e", error_log};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  if (::posix_spawn(&pid_, kNginx, nullptr, nullptr, argv.data(), environ) != 0) {
    pid_ = -1;
    return absl::InternalError("posix_spawn nginx failed");
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    if (Accepts(port_)) return absl::OkStatus();
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return absl::InternalError(absl::StrCat("nginx exited: ", ReadWhole(error_log)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return absl::DeadlineExceededError(
      absl::StrCat("nginx did not accept within 10 s: ", ReadWhole(error_log)));
}

std::string NginxServer::Url(const std::string& path) const {
  return absl::StrCat("https://127.0.0.1:", port_, path);
}

std::vector<std::string> NginxServer::AccessLog() const {
  return absl::StrSplit(ReadWhole(dir_ + "/access.log"), '\n', absl::SkipEmpty());
}

}  // namespace crawler::testing
