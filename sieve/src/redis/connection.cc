#include "connection.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <algorithm>
#include <thread>
#include <utility>

#include "../log_emit.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace sieve::internal {

void ReplyDeleter::operator()(redisReply* reply) const { freeReplyObject(reply); }

absl::Status ReplyError(const redisReply* reply) {
  if (reply == nullptr) return absl::InternalError("redis: no reply");
  if (reply->type != REDIS_REPLY_ERROR) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("redis: ", std::string(reply->str, reply->len)));
}

absl::StatusOr<long long> ReplyInteger(const redisReply* reply) {
  if (absl::Status s = ReplyError(reply); !s.ok()) return s;
  if (reply->type != REDIS_REPLY_INTEGER) {
    return absl::InternalError(absl::StrCat("redis: expected an integer, got type ", reply->type));
  }
  return reply->integer;
}

absl::StatusOr<std::string> ReplyString(const redisReply* reply) {
  if (absl::Status s = ReplyError(reply); !s.ok()) return s;
  if (reply->type == REDIS_REPLY_NIL) return std::string();
  if (reply->type != REDIS_REPLY_STRING && reply->type != REDIS_REPLY_STATUS) {
    return absl::InternalError(absl::StrCat("redis: expected a string, got type ", reply->type));
  }
  return std::string(reply->str, reply->len);
}

bool ReplyIsNil(const redisReply* reply) {
  return reply != nullptr && reply->type == REDIS_REPLY_NIL;
}

namespace {

timeval ToTimeval(std::chrono::milliseconds ms) {
  timeval tv;
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

bool IsNoScript(const redisReply* reply) {
  return reply != nullptr && reply->type == REDIS_REPLY_ERROR &&
         absl::StartsWith(absl::string_view(reply->str, reply->len), "NOSCRIPT");
}

}  // namespace

RedisConnection::RedisConnection(const RedisSieveOptions& options)
    : host_(options.host),
      port_(options.port),
      io_timeout_(options.io_timeout),
      retry_(options.retry),
      log_(options.log_sink) {}

RedisConnection::~RedisConnection() {
  if (context_ != nullptr) redisFree(context_);
}

absl::StatusOr<std::unique_ptr<RedisConnection>> RedisConnection::Open(
    const RedisSieveOptions& options) {
  std::unique_ptr<RedisConnection> connection(new RedisConnection(options));
  absl::StatusOr<std::vector<RedisReply>> ping = connection->Run({{"PING"}});
  if (!ping.ok()) return ping.status();
  return connection;
}

void RedisConnection::RequireOnReconnect(std::string key, std::string value) {
  required_.emplace_back(std::move(key), std::move(value));
}

absl::Status RedisConnection::Connect() {
  if (context_ != nullptr) return absl::OkStatus();
  redisContext* c = redisConnectWithTimeout(host_.c_str(), port_, ToTimeval(io_timeout_));
  if (c == nullptr || c->err != 0) {
    std::string why = c == nullptr ? "cannot allocate a context" : c->errstr;
    if (c != nullptr) redisFree(c);
    return absl::UnavailableError(absl::StrCat("cannot connect: ", why));
  }
  redisSetTimeout(c, ToTimeval(io_timeout_));
  context_ = c;
  const bool reconnect = connected_once_;
  connected_once_ = true;
  if (absl::Status s = LoadScripts(); !s.ok()) return s;
  if (!reconnect) return absl::OkStatus();
  for (const auto& [key, required] : required_) {
    absl::StatusOr<std::vector<RedisReply>> got = SendOnce({{"GET", key}});
    if (!got.ok()) return got.status();
    absl::StatusOr<std::string> value = ReplyString((*got)[0].get());
    if (!value.ok()) return value.status();
    if (*value != required) {
      return absl::DataLossError(
          absl::StrCat("redis ", host_, ":", port_, " came back without ", key,
                       " (restarted without persistence?): the shared frontier is lost"));
    }
  }
  return absl::OkStatus();
}

absl::Status RedisConnection::LoadScripts() {
  if (scripts_.empty()) return absl::OkStatus();
  std::vector<RedisCommand> loads;
  for (const std::string& source : scripts_) loads.push_back({"SCRIPT", "LOAD", source});
  absl::StatusOr<std::vector<RedisReply>> replies = SendOnce(loads);
  if (!replies.ok()) return replies.status();
  for (const RedisReply& reply : *replies) {
    if (absl::Status s = ReplyError(reply.get()); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> RedisConnection::Register(const std::string& source) {
  scripts_.push_back(source);
  absl::StatusOr<RedisReply> sha = Call({"SCRIPT", "LOAD", source});
  if (!sha.ok()) return sha.status();
  return ReplyString(sha->get());
}

absl::StatusOr<std::vector<RedisReply>> RedisConnection::SendOnce(
    const std::vector<RedisCommand>& commands) {
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
  for (const RedisCommand& command : commands) {
    argv.clear();
    lengths.clear();
    for (const std::string& arg : command) {
      argv.push_back(arg.data());
      lengths.push_back(arg.size());
    }
    redisAppendCommandArgv(context_, static_cast<int>(argv.size()), argv.data(), lengths.data());
  }
  std::vector<RedisReply> replies;
  replies.reserve(commands.size());
  for (size_t i = 0; i < commands.size(); ++i) {
    void* reply = nullptr;
    if (redisGetReply(context_, &reply) != REDIS_OK || reply == nullptr) {
      std::string why = context_->errstr[0] != '\0' ? context_->errstr : "no reply";
      redisFree(context_);
      context_ = nullptr;
      return absl::UnavailableError(why);
    }
    replies.emplace_back(static_cast<redisReply*>(reply));
  }
  return replies;
}

absl::StatusOr<std::vector<RedisReply>> RedisConnection::Run(
    const std::vector<RedisCommand>& commands) {
  std::chrono::milliseconds backoff = retry_.first_backoff;
  absl::Status last;
  for (int attempt = 1; attempt <= retry_.max_attempts; ++attempt) {
    if (attempt > 1) {
      std::this_thread::sleep_for(backoff);
      backoff = std::min(backoff * 2, retry_.max_backoff);
    }
    if (absl::Status s = Connect(); !s.ok()) {
      if (s.code() == absl::StatusCode::kDataLoss) return s;  // retrying cannot help
      last = s;
      continue;
    }
    absl::StatusOr<std::vector<RedisReply>> replies = SendOnce(commands);
    if (!replies.ok()) {
      last = replies.status();
      Emit(log_, LogLevel::kDebug,
           absl::StrCat("redis ", host_, ":", port_, ": attempt ", attempt,
                        " failed: ", last.message()));
      continue;
    }
    bool noscript = std::any_of(replies->begin(), replies->end(),
                                [](const RedisReply& r) { return IsNoScript(r.get()); });
    if (!noscript) return replies;
    last = absl::UnavailableError("NOSCRIPT after loading the scripts");
    if (absl::Status s = LoadScripts(); !s.ok()) last = s;
  }
  return absl::UnavailableError(absl::StrCat("redis ", host_, ":", port_, " failed ",
                                             retry_.max_attempts, " attempts: ", last.message()));
}

bool CommandInfoDescribes(const redisReply* reply) {
  return reply->type == REDIS_REPLY_ARRAY && reply->elements == 1 &&
         reply->element[0]->type == REDIS_REPLY_ARRAY;
}

absl::StatusOr<bool> RedisLink::EveryServerKnows(const std::string& command) {
  absl::StatusOr<RedisReply> reply = Call({"COMMAND", "INFO", command});
  if (!reply.ok()) return reply.status();
  return CommandInfoDescribes(reply->get());
}

absl::StatusOr<RedisReply> RedisLink::Call(const RedisCommand& command) {
  absl::StatusOr<std::vector<RedisReply>> replies = Run({command});
  if (!replies.ok()) return replies.status();
  RedisReply reply = std::move((*replies)[0]);
  if (absl::Status s = ReplyError(reply.get()); !s.ok()) return s;
  return reply;
}

}  // namespace sieve::internal
