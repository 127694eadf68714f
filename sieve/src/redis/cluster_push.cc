// A push on a Redis Cluster: the filter step per shard, then the enqueue
// (redis_sieve.h, "Redis Cluster"; scripts.cc, FILTER and ENQUEUE).
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

// Step 1 for the URLs [first, end): one FILTER call per shard they fall in,
// all sent at once (one pipeline per primary). Fills is_new.
bool FilterTrip(State& s, absl::Span<const std::string_view> urls, size_t first, size_t end,
                const std::string& trip, absl::Span<bool> is_new) {
  std::map<uint64_t, std::vector<size_t>> by_shard;  // URL indices, in order
  std::vector<std::vector<uint64_t>> positions(end - first);
  for (size_t i = first; i < end; ++i) {
    std::vector<uint64_t>& p = positions[i - first];
    s.layout.Positions(bloom::HashKey(urls[i]), p);
    by_shard[s.layout.ShardOf(p.front())].push_back(i);
  }
  std::vector<RedisCommand> commands;
  for (const auto& [shard, indices] : by_shard) {
    RedisCommand c = {"EVALSHA",
                      s.filter_sha,
                      "2",
                      s.keys.ShardKey(shard),
                      s.keys.ShardTripKey(shard, s.owner),
                      trip,
                      std::to_string(s.layout.hash_count())};
    for (size_t i : indices) {
      for (uint64_t p : positions[i - first]) {
        if (s.layout.ShardOf(p) != shard) {  // Validate requires the blocked layout
          Fail(s, absl::InternalError("cluster push: a URL's bits span two shards"));
          return false;
        }
        c.push_back(std::to_string(s.layout.OffsetInShard(p)));
      }
    }
    commands.push_back(std::move(c));
  }
  absl::StatusOr<std::vector<RedisReply>> replies = s.connection->Run(commands);
  if (!replies.ok()) {
    Fail(s, replies.status());
    return false;
  }
  size_t c = 0;
  for (const auto& [shard, indices] : by_shard) {
    absl::StatusOr<std::string> flags = ReplyString((*replies)[c++].get());
    if (!flags.ok() || flags->size() != indices.size()) {
      Fail(s,
           flags.ok() ? absl::InternalError("filter script: wrong reply length") : flags.status());
      return false;
    }
    for (size_t j = 0; j < indices.size(); ++j) is_new[indices[j]] = (*flags)[j] == '1';
  }
  return true;
}

// Step 2: the new URLs of [first, end) into their hosts' queues.
bool EnqueueTrip(State& s, absl::Span<const std::string_view> urls,
                 absl::Span<const std::string> elements, size_t first, size_t end,
                 const std::string& trip, absl::Span<const bool> is_new) {
  RedisCommand command = {"EVALSHA", s.enqueue_sha, "1", s.keys.meta, s.keys.prefix, s.owner, trip};
  for (size_t i = first; i < end; ++i) {
    if (!is_new[i]) continue;
    command.push_back(elements[i]);
    command.push_back(s.options.host_key ? s.options.host_key(urls[i]) : std::string());
  }
  if (command.size() == 7) return true;
  absl::StatusOr<RedisReply> reply = s.connection->Call(command);
  absl::StatusOr<long long> enqueued =
      reply.ok() ? ReplyInteger(reply->get()) : absl::StatusOr<long long>(reply.status());
  if (!enqueued.ok()) {
    Fail(s, enqueued.status());
    return false;
  }
  return true;
}

}  // namespace

bool ClusterPushUrls(State& s, absl::Span<const std::string_view> urls,
                     absl::Span<const std::string> elements, absl::Span<bool> is_new) {
  const size_t per_trip = s.options.push_batch_size * kClusterTripBatches;
  for (size_t first = 0; first < urls.size(); first += per_trip) {
    const size_t end = std::min(urls.size(), first + per_trip);
    const std::string trip = absl::StrCat(++s.push_trips);
    if (!FilterTrip(s, urls, first, end, trip, is_new)) return false;
    if (!EnqueueTrip(s, urls, elements, first, end, trip, is_new)) return false;
  }
  return true;
}

}  // namespace sieve::internal
