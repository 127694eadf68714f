// RedisSieve's server slots: the fleet's fetch slots per server,
// NAME:srv:<server> and NAME:srvnext:<server>, handed out in line order
// (NAME:srvline:<server>, NAME:srvlive:<server>), for limits such as
// crawl's --per-ip and --ip-delay that must hold across processes. The scripts
// (lua/server_take.lua, server_give.lua) are registered at their first use:
// a frontier that never groups by server loads nothing more.
#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "lua_sources.h"
#include "redis_state.h"
#include "round_trips.h"
#include "sieve/redis_sieve.h"

namespace sieve {
namespace {

using internal::RedisReply;
using internal::ReplyInteger;

// The SHA of the prelude and `script`, registered once per client; "" after
// a failure (recorded in s.failure).
const std::string& Registered(RedisSieve::State& s, std::string& sha, const char* script)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  if (!sha.empty()) return sha;
  absl::StatusOr<std::string> loaded =
      s.connection->Register(std::string(internal::lua::kPrelude) + script);
  if (!loaded.ok()) {
    internal::Fail(s, loaded.status());
  } else {
    sha = *loaded;
  }
  return sha;
}

}  // namespace

RedisSieve::ServerSlot RedisSieve::TakeServerSlot(std::string_view server, int limit,
                                                  std::chrono::milliseconds interval,
                                                  std::chrono::milliseconds lease,
                                                  std::chrono::milliseconds patience) {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  ServerSlot slot;
  if (!s.failure.ok()) return slot;
  const std::string& sha = Registered(s, s.server_take_sha, internal::lua::kServerTake);
  if (sha.empty()) return slot;
  const std::string token = absl::StrCat(s.owner, ":", ++s.server_tokens);
  absl::StatusOr<RedisReply> reply = s.connection->Call(
      {"EVALSHA", sha, "1", s.keys.meta, s.keys.prefix, std::string(server), token, s.owner,
       std::to_string(limit), std::to_string(interval.count()), std::to_string(lease.count()),
       std::to_string(std::max<int64_t>(1, patience.count()))});
  absl::StatusOr<long long> answer =
      reply.ok() ? ReplyInteger(reply->get()) : absl::StatusOr<long long>(reply.status());
  if (!answer.ok()) {
    internal::Fail(s, answer.status());
    return slot;
  }
  if (*answer == 0) {
    slot.token = token;
  } else if (*answer > 0) {
    slot.retry_in = std::chrono::milliseconds(*answer);
  }
  return slot;
}

void RedisSieve::GiveServerSlot(std::string_view server, std::string_view token,
                                std::chrono::milliseconds next_start_in) {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (token.empty() || !s.failure.ok()) return;
  const std::string& sha = Registered(s, s.server_give_sha, internal::lua::kServerGive);
  if (sha.empty()) return;
  absl::StatusOr<RedisReply> reply = s.connection->Call(
      {"EVALSHA", sha, "1", s.keys.meta, s.keys.prefix, std::string(server), std::string(token),
       std::to_string(std::max<int64_t>(0, next_start_in.count()))});
  if (!reply.ok()) internal::Fail(s, reply.status());
}

}  // namespace sieve
