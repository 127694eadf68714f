#include "redis_fixture/redis_server.h"

#include <arpa/inet.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "spdlog/spdlog.h"

namespace sieve_test {
namespace {

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

bool OnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::string all(path);
  size_t start = 0;
  while (start <= all.size()) {
    size_t end = all.find(':', start);
    if (end == std::string::npos) end = all.size();
    if (access((all.substr(start, end - start) + "/" + program).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

std::string ReplyText(const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_INTEGER:
      return std::to_string(r->integer);
    case REDIS_REPLY_NIL:
      return "";
    case REDIS_REPLY_ARRAY: {
      std::vector<std::string> parts;
      for (size_t i = 0; i < r->elements; ++i) parts.push_back(ReplyText(r->element[i]));
      return absl::StrJoin(parts, "\n");
    }
    default:
      return std::string(r->str, r->len);
  }
}

}  // namespace

RedisServer::RedisServer(bool with_module, std::vector<std::string> extra_args, int port)
    : with_module_(with_module), extra_args_(std::move(extra_args)) {
  // spdlog builds its registry on first use, inside libspdlog, which TSan
  // does not instrument: when two test threads log first at once (each
  // connecting a RedisSieve), TSan cannot see the static's guard and reports
  // the construction as a race. Build it here, before any test thread.
  spdlog::default_logger_raw();
  std::random_device random;
  dir_ = std::filesystem::temp_directory_path() / absl::StrCat("sieve-redis-test-", random());
  std::filesystem::create_directories(dir_);
  port_ = port != 0 ? port : FreePort();
}

RedisServer::~RedisServer() {
  Kill();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

absl::Status RedisServer::Start() {
  if (!OnPath("redis-server")) {
    return absl::FailedPreconditionError(
        "redis-server is not on PATH: install it (Debian package redis-server, see scripts/setup)");
  }
  // FreePort's port is free only when it is asked: under a parallel ctest,
  // another test's server (or a client's source port) may take it before our
  // server binds. Our server then exits, and a PING may even be answered by
  // the other test's server, so a start is accepted only from our process.
  // A first start moves to a new port; a restart must keep its port.
  constexpr int kAttempts = 5;
  absl::Status status;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    status = StartOnce();
    if (status.ok() || started_once_ || !absl::IsUnavailable(status)) break;
    port_ = FreePort();
  }
  if (status.ok()) started_once_ = true;
  return status;
}

absl::Status RedisServer::StartOnce() {
  const std::string port = std::to_string(port_);
  const std::string dir = dir_.string();
  std::vector<const char*> argv = {
      "redis-server", "--port", port.c_str(), "--bind",    "127.0.0.1",  "--save", "",
      "--appendonly", "no",     "--dir",      dir.c_str(), "--loglevel", "warning"};
  for (const std::string& arg : extra_args_) argv.push_back(arg.c_str());
  if (with_module_) {
    argv.push_back("--loadmodule");
    argv.push_back(CRAWL_REDIS_MODULE);
    argv.push_back("--enable-module-command");  // MODULE UNLOAD, from 127.0.0.1 only
    argv.push_back("local");
  }
  argv.push_back(nullptr);
  // An ASan-built module needs the ASan runtime loaded first. (The
  // environment is built before fork: the child only execs.)
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  if (with_module_ && CRAWL_REDIS_MODULE_PRELOAD[0] != '\0') {
    env.push_back(absl::StrCat("LD_PRELOAD=", CRAWL_REDIS_MODULE_PRELOAD));
    env.push_back("ASAN_OPTIONS=detect_leaks=0");
  }
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    // Dies with the test: a test process ended by a sanitizer report skips
    // our destructor, and a live server holding the test's output pipe made
    // ctest wait out its whole timeout.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    execvpe("redis-server", const_cast<char* const*>(argv.data()), envp.data());
    _exit(127);
  }
  const std::string our_pid = absl::StrCat("process_id:", pid_, "\r\n");
  for (int i = 0; i < 500; ++i) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return absl::UnavailableError(absl::StrCat("redis-server exited at start on port ", port));
    }
    if (Command({"PING"}) == "PONG" &&
        Command({"INFO", "server"}).find(our_pid) != std::string::npos) {
      return absl::OkStatus();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  Kill();
  return absl::DeadlineExceededError(
      absl::StrCat("redis-server did not answer PING on port ", port, " within 5 s"));
}

void RedisServer::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

sieve::RedisSieveOptions RedisServer::Options(const std::string& name) const {
  sieve::RedisSieveOptions options;
  options.host = "127.0.0.1";
  options.port = port_;
  options.name = name;
  options.io_timeout = std::chrono::milliseconds(1000);
  options.retry.max_attempts = 3;
  options.retry.first_backoff = std::chrono::milliseconds(10);
  options.stats_cache = std::chrono::milliseconds(0);
  options.poll_interval = std::chrono::milliseconds(5);
  return options;
}

std::vector<std::string> RedisServer::ListElements(const std::string& key) const {
  std::vector<std::string> out;
  timeval timeout{1, 0};
  redisContext* c = redisConnectWithTimeout("127.0.0.1", port_, timeout);
  if (c == nullptr || c->err != 0) {
    if (c != nullptr) redisFree(c);
    return out;
  }
  const char* argv[] = {"LRANGE", key.data(), "0", "-1"};
  const size_t lengths[] = {6, key.size(), 1, 2};
  auto* reply = static_cast<redisReply*>(redisCommandArgv(c, 4, argv, lengths));
  if (reply != nullptr && reply->type == REDIS_REPLY_ARRAY) {
    for (size_t i = 0; i < reply->elements; ++i) {
      out.emplace_back(reply->element[i]->str, reply->element[i]->len);
    }
  }
  if (reply != nullptr) freeReplyObject(reply);
  redisFree(c);
  return out;
}

std::string RedisServer::Command(const std::vector<std::string>& args,
                                 std::chrono::milliseconds timeout) const {
  const timeval tv{static_cast<time_t>(timeout.count() / 1000),
                   static_cast<suseconds_t>(timeout.count() % 1000 * 1000)};
  redisContext* c = redisConnectWithTimeout("127.0.0.1", port_, tv);
  if (c == nullptr || c->err != 0) {
    if (c != nullptr) redisFree(c);
    return "ERR cannot connect";
  }
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
  for (const std::string& a : args) {
    argv.push_back(a.data());
    lengths.push_back(a.size());
  }
  auto* reply = static_cast<redisReply*>(
      redisCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lengths.data()));
  std::string text = reply == nullptr ? "ERR no reply" : ReplyText(reply);
  if (reply != nullptr) freeReplyObject(reply);
  redisFree(c);
  return text;
}

}  // namespace sieve_test
