// A push on a Redis Cluster: the journal, the filter step per shard, then
// the enqueue (redis_sieve.h, "Redis Cluster"; scripts.cc, JOURNAL, FILTER
// and ENQUEUE).
#include <hiredis/hiredis.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "round_trips.h"

namespace sieve::internal {
namespace {

// URLs per trip: as many as a single server's pipelined push round trip.
constexpr size_t kClusterTripBatches = 8;

// Step 0: the trip's URLs (queue elements and hosts) into this client's
// journal record in {NAME}, before any of their bits is set.
bool JournalTrip(State& s, absl::Span<const std::string_view> urls,
                 absl::Span<const std::string> elements, const std::string& trip) {
  RedisCommand command = {
      "EVALSHA",     s.journal_sha, "1",  s.keys.meta,
      s.keys.prefix, s.owner,       trip, std::to_string(s.options.lease_time.count())};
  command.reserve(command.size() + 2 * urls.size());
  for (size_t i = 0; i < urls.size(); ++i) {
    command.push_back(elements[i]);
    command.push_back(s.options.host_key ? s.options.host_key(urls[i]) : std::string());
  }
  absl::StatusOr<RedisReply> reply = s.connection->Call(command);
  if (!reply.ok()) {
    Fail(s, reply.status());
    return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> ClusterFilterStep(State& s, const std::string& owner,
                                             const std::string& trip, std::string_view mode,
                                             absl::Span<const std::string_view> urls) {
  std::map<uint64_t, std::vector<size_t>> by_shard;  // URL indices, in order
  std::vector<std::vector<uint64_t>> positions(urls.size());
  for (size_t i = 0; i < urls.size(); ++i) {
    s.layout.Positions(bloom::HashKey(urls[i]), positions[i]);
    by_shard[s.layout.ShardOf(positions[i].front())].push_back(i);
  }
  std::vector<RedisCommand> commands;
  for (const auto& [shard, indices] : by_shard) {
    RedisCommand c = {"EVALSHA",
                      s.filter_sha,
                      "2",
                      s.keys.ShardKey(shard),
                      s.keys.ShardTripKey(shard, owner),
                      trip,
                      std::to_string(s.layout.hash_count()),
                      std::string(mode),
                      std::to_string(kTripRecordLife.count())};
    for (size_t i : indices) {
      for (uint64_t p : positions[i]) {
        if (s.layout.ShardOf(p) != shard) {  // Validate requires the blocked layout
          Fail(s, absl::InternalError("cluster push: a URL's bits span two shards"));
          return std::nullopt;
        }
        c.push_back(std::to_string(s.layout.OffsetInShard(p)));
      }
    }
    commands.push_back(std::move(c));
  }
  absl::StatusOr<std::vector<RedisReply>> replies = s.connection->Run(commands);
  if (!replies.ok()) {
    Fail(s, replies.status());
    return std::nullopt;
  }
  std::string flags(urls.size(), '0');
  size_t c = 0;
  for (const auto& [shard, indices] : by_shard) {
    absl::StatusOr<std::string> answer = ReplyString((*replies)[c++].get());
    if (answer.ok() && answer->empty() && mode != "run") return std::string();  // finished
    if (!answer.ok() || answer->size() != indices.size()) {
      Fail(s, answer.ok() ? absl::InternalError("filter script: wrong reply length")
                          : answer.status());
      return std::nullopt;
    }
    for (size_t j = 0; j < indices.size(); ++j) flags[indices[j]] = (*answer)[j];
  }
  return flags;
}

bool ClusterEnqueueStep(State& s, const std::string& owner, const std::string& trip,
                        const std::string& flags) {
  absl::StatusOr<RedisReply> reply = s.connection->Call(
      {"EVALSHA", s.enqueue_sha, "1", s.keys.meta, s.keys.prefix, owner, trip, flags});
  absl::StatusOr<long long> enqueued =
      reply.ok() ? ReplyInteger(reply->get()) : absl::StatusOr<long long>(reply.status());
  if (!enqueued.ok()) {
    Fail(s, enqueued.status());
    return false;
  }
  return true;
}

bool ClusterPushUrls(State& s, absl::Span<const std::string_view> urls,
                     absl::Span<const std::string> elements, absl::Span<bool> is_new) {
  const size_t per_trip = s.options.push_batch_size * kClusterTripBatches;
  for (size_t first = 0; first < urls.size(); first += per_trip) {
    const size_t count = std::min(urls.size() - first, per_trip);
    const std::string trip = absl::StrCat(++s.push_trips);
    const absl::Span<const std::string_view> part = urls.subspan(first, count);
    if (!JournalTrip(s, part, elements.subspan(first, count), trip)) return false;
    std::optional<std::string> flags = ClusterFilterStep(s, s.owner, trip, "run", part);
    if (!flags.has_value()) return false;
    if (!ClusterEnqueueStep(s, s.owner, trip, *flags)) return false;
    for (size_t i = 0; i < count; ++i) is_new[first + i] = (*flags)[i] == '1';
  }
  return true;
}

}  // namespace sieve::internal
