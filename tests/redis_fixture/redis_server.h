// A private redis-server for a test: started from PATH on 127.0.0.1 on a free
// port, with no persistence (--save "" --appendonly no), in a scratch
// directory; killed by the destructor. A missing redis-server is a test
// failure (Start returns the error), never a skip. RedisServer(true) loads
// the crawlsieve module built with the tests (CRAWL_REDIS_MODULE), so
// RedisSieve pushes through CRAWLSIEVE.PUSH instead of the Lua script.
//
//   RedisServer redis;
//   ASSERT_TRUE(redis.Start().ok());
//   options.port = redis.port();
//
// Threading: one thread.
#ifndef TESTS_REDIS_FIXTURE_REDIS_SERVER_H_
#define TESTS_REDIS_FIXTURE_REDIS_SERVER_H_

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "sieve/redis_sieve.h"

namespace sieve_test {

class RedisServer {
 public:
  // extra_args: more redis-server arguments (the cluster fixture's
  // --cluster-enabled ...); port 0: a free one.
  explicit RedisServer(bool with_module = false, std::vector<std::string> extra_args = {},
                       int port = 0);
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  // Starts the server and waits until it answers PING. A first start whose
  // port was taken meanwhile moves to another free port (port() changes); a
  // start after Kill keeps the port, as a restarted Redis would.
  absl::Status Start();
  // SIGKILL, and waits for it: the state is gone.
  void Kill();
  int port() const { return port_; }
  // The server's process id (-1 when not running), e.g. for its CPU time.
  pid_t pid() const { return pid_; }
  bool with_module() const { return with_module_; }

  // Options for a RedisSieve on this server, frontier `name`, with fast
  // retries and no stats caching (tests read fresh figures).
  sieve::RedisSieveOptions Options(const std::string& name) const;

  // Runs one command on a fresh connection; the reply as text ("" for nil,
  // integers in decimal, arrays joined by '\n'); "ERR..." on error, or when
  // no reply came within `timeout`.
  std::string Command(const std::vector<std::string>& args,
                      std::chrono::milliseconds timeout = std::chrono::seconds(1)) const;
  // LRANGE key 0 -1, each element's bytes as they are (binary safe).
  std::vector<std::string> ListElements(const std::string& key) const;

 private:
  // One launch on port_: Unavailable if the server exited (the port was
  // taken); OK only once the server answering is this fixture's process.
  absl::Status StartOnce();

  std::filesystem::path dir_;
  bool with_module_;
  std::vector<std::string> extra_args_;
  int port_ = 0;
  pid_t pid_ = -1;
  bool started_once_ = false;
};

}  // namespace sieve_test

#endif  // TESTS_REDIS_FIXTURE_REDIS_SERVER_H_
