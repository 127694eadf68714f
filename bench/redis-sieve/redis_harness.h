// The benchmark's own redis-server (the tests' fixture, tests/redis_fixture/:
// 127.0.0.1, a free port, no persistence, the crawlsieve module loaded,
// killed at exit) and the few raw commands the benchmark needs beside
// RedisSieve: INFO memory, FLUSHALL, and the SADD baseline.
//
// Threading: one thread.
#ifndef BENCH_REDIS_SIEVE_REDIS_HARNESS_H_
#define BENCH_REDIS_SIEVE_REDIS_HARNESS_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "redis_fixture/redis_server.h"

namespace redis_bench {

// CPU seconds (user + system) process `pid` has used so far (/proc).
double ProcessCpuSeconds(pid_t pid);

class RedisHarness {
 public:
  RedisHarness();
  absl::Status Start() { return server_.Start(); }
  int port() const { return server_.port(); }
  // CPU seconds (user + system) the server has used so far (/proc).
  double CpuSeconds() const { return ProcessCpuSeconds(server_.pid()); }
  std::string Version() const;
  // One command; the reply as text (integers in decimal, "" for nil).
  std::string Command(const std::vector<std::string>& args) const;
  uint64_t UsedMemory() const;  // INFO memory: used_memory
  // SADD of URLs 0..n-1 (bench/sieve's generator) in pipelined batches of 1024.
  void SaddRange(const std::string& key, uint64_t n) const;

 private:
  sieve_test::RedisServer server_;
};

}  // namespace redis_bench

#endif  // BENCH_REDIS_SIEVE_REDIS_HARNESS_H_
