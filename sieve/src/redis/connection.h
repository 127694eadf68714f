// One hiredis connection with the retry policy of RedisSieveOptions: commands
// go out pipelined (all written, then all replies read: one round trip for
// the lot); on a network error the connection is dropped, re-opened after a
// back-off and the commands sent again, up to the policy's attempts. Every
// command sent through here must therefore be safe to run twice (RedisSieve's
// scripts are: a push sent twice finds its bits set, an ack twice finds no
// lease).
//
//   absl::StatusOr<RedisConnection> c = RedisConnection::Open(options);
//   absl::StatusOr<std::vector<RedisReply>> r = c->Run({{"LLEN", "q"}});
//
// Scripts: Register(source) keeps the source and returns its SHA1; a reply
// NOSCRIPT (Redis restarted, or SCRIPT FLUSH) makes Run load every registered
// script again and resend.
//
// RedisLink is what RedisSieve talks to: this class (one server) or
// ClusterConnection (cluster/cluster_connection.h: a Redis Cluster, each
// command routed by its key's slot).
//
// Threading: none; RedisSieve uses it under its mutex.
#ifndef SIEVE_SRC_REDIS_CONNECTION_H_
#define SIEVE_SRC_REDIS_CONNECTION_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sieve/redis_sieve.h"

struct redisContext;
struct redisReply;

namespace sieve::internal {

struct ReplyDeleter {
  void operator()(redisReply* reply) const;
};
using RedisReply = std::unique_ptr<redisReply, ReplyDeleter>;
using RedisCommand = std::vector<std::string>;

// Reply accessors: InternalError if the reply is not of the expected kind
// (an error reply's text is in the message).
absl::StatusOr<long long> ReplyInteger(const redisReply* reply);
absl::StatusOr<std::string> ReplyString(const redisReply* reply);  // nil: ""
bool ReplyIsNil(const redisReply* reply);
absl::Status ReplyError(const redisReply* reply);  // OK unless an error reply
// True if a reply to COMMAND INFO <one command> describes it (a server
// answers [nil] for a command it does not know).
bool CommandInfoDescribes(const redisReply* reply);

class RedisLink {
 public:
  virtual ~RedisLink() = default;
  // After every re-connection (not the first), GET `key` must return `value`;
  // otherwise Run returns DataLoss (RedisSieve checks so that the frontier
  // survived: a Redis restarted without persistence lost it). Each call
  // adds a key; all are checked (on a cluster, each by its slot's primary).
  virtual void RequireOnReconnect(std::string key, std::string value) = 0;
  // Remembers a Lua script and loads it now; returns its SHA1 for EVALSHA.
  virtual absl::StatusOr<std::string> Register(const std::string& source) = 0;
  // Sends the commands pipelined and returns one reply per command (error
  // replies included: check them). Unavailable after the retries.
  virtual absl::StatusOr<std::vector<RedisReply>> Run(
      const std::vector<RedisCommand>& commands) = 0;
  // Run of one command, its error reply turned into a status.
  absl::StatusOr<RedisReply> Call(const RedisCommand& command);
  // True if every server behind the link knows `command` (a module's, e.g.
  // "crawlsieve.push"); one server: COMMAND INFO.
  virtual absl::StatusOr<bool> EveryServerKnows(const std::string& command);
  // Changes whenever the servers behind the link may have changed (a
  // cluster re-read its slot map: a failover, a resharding), so a caller
  // asks EveryServerKnows again; 0 for one server.
  virtual uint64_t ServersEpoch() const { return 0; }
  // Waits until a replica of the server holding `key` has every write this
  // link made to that server (WAIT 1), bounded by a short timeout, where that
  // server streams to a replica; OK at once otherwise (one server, no
  // replica, or a replica that missed the timeout since the server was last
  // asked). Unavailable if the server could not be asked (it may have died
  // with writes it had not replicated: the caller writes them again).
  virtual absl::Status AwaitReplica(const std::string& /*key*/) { return absl::OkStatus(); }
};

class RedisConnection final : public RedisLink {
 public:
  static absl::StatusOr<std::unique_ptr<RedisConnection>> Open(const RedisSieveOptions& options);
  ~RedisConnection() override;

  void RequireOnReconnect(std::string key, std::string value) override;
  absl::StatusOr<std::string> Register(const std::string& source) override;
  absl::StatusOr<std::vector<RedisReply>> Run(const std::vector<RedisCommand>& commands) override;

 private:
  explicit RedisConnection(const RedisSieveOptions& options);
  absl::Status Connect();
  absl::Status LoadScripts();
  // One attempt: writes and reads everything, or fails on the network.
  absl::StatusOr<std::vector<RedisReply>> SendOnce(const std::vector<RedisCommand>& commands);

  std::string host_;
  int port_;
  std::chrono::milliseconds io_timeout_;
  RedisRetryPolicy retry_;
  LogSink log_;
  redisContext* context_ = nullptr;
  bool connected_once_ = false;
  std::vector<std::string> scripts_;
  std::vector<std::pair<std::string, std::string>> required_;  // key, value
};

}  // namespace sieve::internal

#endif  // SIEVE_SRC_REDIS_CONNECTION_H_
