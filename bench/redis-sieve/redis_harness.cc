#include "redis_harness.h"

#include <hiredis/hiredis.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "sieve/url_generator.h"

namespace redis_bench {
namespace {

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

// With the crawlsieve module, so one server runs both push paths; its log
// in its own directory, not in the benchmark's table.
RedisHarness::RedisHarness() : server_(true, {"--logfile", "redis.log"}) {}

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
  return server_.Command(args, std::chrono::seconds(30));
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
  redisContext* c = Connect(port());
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
