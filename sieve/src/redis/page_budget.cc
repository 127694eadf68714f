// RedisSieve's page budget: the fleet's count of pages taken, NAME:pages,
// for a limit such as crawl's --max-pages that must hold across processes.
#include <string>

#include "redis_state.h"
#include "round_trips.h"
#include "sieve/redis_sieve.h"

namespace sieve {

using internal::RedisReply;
using internal::ReplyInteger;

bool RedisSieve::TakePage(uint64_t limit) {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.failure.ok()) return false;
  absl::StatusOr<RedisReply> reply = s.connection->Call(
      {"EVALSHA", s.take_page_sha, "1", s.keys.meta, s.keys.prefix, std::to_string(limit)});
  absl::StatusOr<long long> taken =
      reply.ok() ? ReplyInteger(reply->get()) : absl::StatusOr<long long>(reply.status());
  if (!taken.ok()) {
    internal::Fail(s, taken.status());
    return false;
  }
  return *taken == 1;
}

void RedisSieve::ReturnPages(uint64_t count) {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (count == 0 || !s.failure.ok()) return;
  absl::StatusOr<RedisReply> reply =
      s.connection->Call({"DECRBY", s.keys.pages, std::to_string(count)});
  if (!reply.ok()) internal::Fail(s, reply.status());
}

}  // namespace sieve
