#include "redis_harness.h"

#include <arpa/inet.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sieve/url_generator.h"

namespace redis_bench {
namespace {

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

redisContext* Connect(int port) {
  timeval timeout{30, 0};
  redisContext* c = redisConnectWithTimeout("127.0.0.1", port, timeout);
  if (c != nullptr && c->err != 0) {
    redisFree(c);
    return nullptr;
  }
  return c;
}

}  // namespace

RedisHarness::RedisHarness(std::vector<std::string> extra_args, int port)
    : extra_args_(std::move(extra_args)) {
  std::random_device random;
  dir_ = std::filesystem::temp_directory_path() / absl::StrCat("redis-sieve-bench-", random());
  std::filesystem::create_directories(dir_);
  port_ = port != 0 ? port : FreePort();
}

RedisHarness::~RedisHarness() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

absl::Status RedisHarness::Start() {
  const std::string port = std::to_string(port_);
  const std::string dir = dir_.string();
  // With the crawlsieve module, so one server runs both push paths.
  std::vector<std::string> args = {
      "redis-server",    "--port", port,    "--bind", "127.0.0.1",  "--save",  "",
      "--appendonly",    "no",     "--dir", dir,      "--loglevel", "warning", "--loadmodule",
      CRAWL_REDIS_MODULE};
  args.insert(args.end(), extra_args_.begin(), extra_args_.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    freopen("/dev/null", "w", stdout);  // its start-up banner is not the table
    execvp("redis-server", argv.data());
    _exit(127);
  }
  for (int i = 0; i < 500; ++i) {
    if (Command({"PING"}) == "PONG") return absl::OkStatus();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return absl::UnavailableError("redis-server (from PATH) did not start");
}

double RedisHarness::CpuSeconds() const { return ProcessCpuSeconds(pid_); }

double ProcessCpuSeconds(pid_t pid) {
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // Fields after the command's closing ')': state is field 3, utime 14, stime 15.
  std::istringstream rest(text.substr(text.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i >= 14) ticks += std::atof(field.c_str());
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::string RedisHarness::Command(const std::vector<std::string>& args) const {
  redisContext* c = Connect(port_);
  if (c == nullptr) return "ERR cannot connect";
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
  for (const std::string& a : args) {
    argv.push_back(a.data());
    lengths.push_back(a.size());
  }
  auto* r = static_cast<redisReply*>(
      redisCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lengths.data()));
  std::string text;
  if (r == nullptr) {
    text = "ERR no reply";
  } else if (r->type == REDIS_REPLY_INTEGER) {
    text = std::to_string(r->integer);
  } else if (r->str != nullptr) {
    text.assign(r->str, r->len);
  }
  if (r != nullptr) freeReplyObject(r);
  redisFree(c);
  return text;
}

std::string RedisHarness::Version() const {
  const std::string info = Command({"INFO", "server"});
  const size_t at = info.find("redis_version:");
  if (at == std::string::npos) return "?";
  return info.substr(at + 14, info.find('\r', at) - at - 14);
}

uint64_t RedisHarness::UsedMemory() const {
  const std::string info = Command({"INFO", "memory"});
  const size_t at = info.find("used_memory:");
  return at == std::string::npos ? 0 : std::stoull(info.substr(at + 12));
}

void RedisHarness::SaddRange(const std::string& key, uint64_t n) const {
  redisContext* c = Connect(port_);
  if (c == nullptr) return;
  sieve_bench::UrlGenerator gen;
  constexpr uint64_t kBatch = 1024;
  constexpr int kDepth = 16;  // SADDs in flight per round trip
  std::vector<std::string> urls(kBatch);
  for (uint64_t i = 0; i < n;) {
    int sent = 0;
    for (; sent < kDepth && i < n; ++sent) {
      std::vector<const char*> argv = {"SADD", key.c_str()};
      std::vector<size_t> lengths = {4, key.size()};
      const uint64_t count = std::min(kBatch, n - i);
      for (uint64_t j = 0; j < count; ++j) {
        gen.Generate(i + j, urls[j]);
        argv.push_back(urls[j].data());
        lengths.push_back(urls[j].size());
      }
      redisAppendCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lengths.data());
      i += count;
    }
    for (int k = 0; k < sent; ++k) {
      void* reply = nullptr;
      if (redisGetReply(c, &reply) == REDIS_OK) freeReplyObject(reply);
    }
  }
  redisFree(c);
}

}  // namespace redis_bench
