// A push on a Redis Cluster: the journal, the filter step per shard, then
// the enqueue (redis_sieve.h, "Redis Cluster"; lua/journal.lua, filter.lua
// and ENQUEUE). The filter step goes through the crawlsieve module's
// CRAWLSIEVE.FILTER when every primary has it (filter_command.h).
#include <hiredis/hiredis.h>

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "../log_emit.h"
#include "absl/strings/str_cat.h"
#include "filter_wire.h"
#include "queue_partitions.h"
#include "round_trips.h"

namespace sieve::internal {
namespace {

// URLs per trip: as many as a single server's pipelined push round trip.
constexpr size_t kClusterTripBatches = 8;

// Step 0: the trip's URLs (queue elements and hosts) into this client's
// journal record in {NAME}, before any of their bits is set.
bool JournalTrip(State& s, absl::Span<const std::string_view> elements,
                 absl::Span<const std::string_view> hosts, const std::string& trip) {
  RedisCommand command = {
      "EVALSHA",     s.journal_sha, "1",  s.keys.meta,
      s.keys.prefix, s.owner,       trip, std::to_string(s.options.lease_time.count())};
  command.reserve(command.size() + 2 * elements.size());
  for (size_t i = 0; i < elements.size(); ++i) {
    command.emplace_back(elements[i]);
    command.emplace_back(hosts[i]);
  }
  absl::StatusOr<RedisReply> reply = s.connection->Call(command);
  if (!reply.ok()) {
    Fail(s, reply.status());
    return false;
  }
  return true;
}

// Step 0, then a wait until a replica of {NAME}'s primary has the record
// (where it has one): a failover can then lose the enqueue (2) but not the
// record, which a survivor replays. Without it, a trip made in the moment
// before its primary died could be missing on the promoted replica, record
// and enqueue both, while the filter shards elsewhere kept its bits: its
// new URLs would be lost. If the primary could not be asked, the record is
// written again (the link re-reads the map and finds the new primary).
bool JournalReplicatedTrip(State& s, absl::Span<const std::string_view> elements,
                           absl::Span<const std::string_view> hosts, const std::string& trip) {
  constexpr int kAttempts = 4;
  absl::Status waited;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    if (!JournalTrip(s, elements, hosts, trip)) return false;
    waited = s.connection->AwaitReplica(s.keys.meta);
    if (waited.ok()) return true;
  }
  Fail(s, waited);
  return false;
}

// The filter step's call on one shard for the URLs `indices` (URL order):
// CRAWLSIEVE.FILTER with the module (its offsets packed, filter_wire.h),
// else the FILTER script; the same keys, trip, mode and answer. Empty (and
// failed) if a URL's bits span two shards.
RedisCommand ShardFilterCall(State& s, bool module, uint64_t shard, const std::string& owner,
                             const std::string& trip, std::string_view mode,
                             const std::vector<size_t>& indices,
                             const std::vector<std::vector<uint64_t>>& positions)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  RedisCommand c;
  if (module) {
    c = {crawlsieve_wire::kFilterCommand,         s.keys.ShardKey(shard),
         s.keys.ShardTripKey(shard, owner),       trip,
         std::to_string(s.layout.hash_count()),   std::string(mode),
         std::to_string(kTripRecordLife.count()), std::string()};
    c.back().reserve(indices.size() * s.layout.hash_count() * crawlsieve_wire::kOffsetBytes);
  } else {
    c = {"EVALSHA",
         s.filter_sha,
         "2",
         s.keys.ShardKey(shard),
         s.keys.ShardTripKey(shard, owner),
         trip,
         std::to_string(s.layout.hash_count()),
         std::string(mode),
         std::to_string(kTripRecordLife.count())};
  }
  for (size_t i : indices) {
    for (uint64_t p : positions[i]) {
      if (s.layout.ShardOf(p) != shard) {  // Validate requires the blocked layout
        Fail(s, absl::InternalError("cluster push: a URL's bits span two shards"));
        return {};
      }
      const uint64_t offset = s.layout.OffsetInShard(p);
      if (module) {
        crawlsieve_wire::AppendU32(c.back(), static_cast<uint32_t>(offset));
      } else {
        c.push_back(std::to_string(offset));
      }
    }
  }
  return c;
}

// A reply says the module's command is unknown there: that primary was
// restarted without the module (or MODULE UNLOAD), and the call did not run.
bool ModuleUnknownThere(const std::vector<RedisReply>& replies) {
  return std::any_of(replies.begin(), replies.end(), [](const RedisReply& r) {
    return r->type == REDIS_REPLY_ERROR &&
           std::string_view(r->str, r->len).find("unknown command") != std::string_view::npos;
  });
}

// With use_push_module, after every re-read of the slot map (a failover or
// a resharding may bring a primary without the module, or back with it):
// the filter step uses CRAWLSIEVE.FILTER iff every primary knows it.
void RefreshFilterPath(State& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  const uint64_t epoch = s.connection->ServersEpoch();
  if (!s.options.use_push_module || epoch == s.module_epoch) return;
  s.module_epoch = epoch;
  absl::StatusOr<bool> everywhere = s.connection->EveryServerKnows("crawlsieve.filter");
  const bool module = everywhere.ok() && *everywhere;
  if (module == s.push_module) return;
  s.push_module = module;
  Emit(s.options.log_sink, LogLevel::kInfo,
       absl::StrCat("redis sieve '", s.options.name, "': the slot map changed; filter step by ",
                    module ? "the crawlsieve module (every primary has it)" : "the Lua script"));
}

}  // namespace

std::optional<std::string> ClusterFilterStep(State& s, const std::string& owner,
                                             const std::string& trip, std::string_view mode,
                                             absl::Span<const std::string_view> urls) {
  RefreshFilterPath(s);
  std::map<uint64_t, std::vector<size_t>> by_shard;  // URL indices, in order
  std::vector<std::vector<uint64_t>> positions(urls.size());
  for (size_t i = 0; i < urls.size(); ++i) {
    s.layout.Positions(bloom::HashKey(urls[i]), positions[i]);
    by_shard[s.layout.ShardOf(positions[i].front())].push_back(i);
  }
  absl::StatusOr<std::vector<RedisReply>> replies;
  for (;;) {
    std::vector<RedisCommand> commands;
    for (const auto& [shard, indices] : by_shard) {
      commands.push_back(
          ShardFilterCall(s, s.push_module, shard, owner, trip, mode, indices, positions));
      if (commands.back().empty()) return std::nullopt;
    }
    replies = s.connection->Run(commands);
    if (!replies.ok()) {
      Fail(s, replies.status());
      return std::nullopt;
    }
    if (!s.push_module || !ModuleUnknownThere(*replies)) break;
    // The shards that ran it keep its answer in their trip records: the
    // script's resend under the same trip id gets it back, the others run.
    Emit(s.options.log_sink, LogLevel::kWarning,
         absl::StrCat("redis sieve '", s.options.name,
                      "': a primary no longer has the crawlsieve module; filter step by the "
                      "Lua script"));
    s.push_module = false;
  }
  std::string flags(urls.size(), '0');
  size_t c = 0;
  for (const auto& [shard, indices] : by_shard) {
    absl::StatusOr<std::string> answer = ReplyString((*replies)[c++].get());
    if (answer.ok() && answer->empty() && mode != "run") return std::string();  // finished
    if (!answer.ok() || answer->size() != indices.size()) {
      Fail(s,
           answer.ok() ? absl::InternalError("filter step: wrong reply length") : answer.status());
      return std::nullopt;
    }
    for (size_t j = 0; j < indices.size(); ++j) flags[indices[j]] = (*answer)[j];
  }
  return flags;
}

namespace {

// ENQUEUE_PART's calls of a trip: per queue partition other than 0, its new
// URLs (flag '1'), in journal order; their flags become '0', so `flags` is
// left with partition 0's (ENQUEUE's).
std::map<uint32_t, RedisCommand> PartitionEnqueueCalls(State& s, const std::string& owner,
                                                       const std::string& trip,
                                                       absl::Span<const std::string_view> elements,
                                                       absl::Span<const std::string_view> hosts,
                                                       std::string& flags) {
  std::map<uint32_t, RedisCommand> calls;
  for (size_t i = 0; i < flags.size(); ++i) {
    if (flags[i] != '1') continue;
    const uint32_t part = PartitionOfHost(hosts[i], s.partitions);
    if (part == 0) continue;
    flags[i] = '0';  // not partition 0's: ENQUEUE leaves it
    RedisCommand& call = calls[part];
    if (call.empty()) {
      call = {"EVALSHA",
              s.enqueue_part_sha,
              "1",
              s.part_meta[part],
              s.part_prefix[part],
              owner,
              trip,
              std::to_string(kTripRecordLife.count())};
    }
    call.emplace_back(elements[i]);
    call.emplace_back(hosts[i]);
  }
  return calls;
}

// The trip's URLs of partitions other than 0 into their partitions, each
// then waited for by its replica: the journal's end (ENQUEUE, in {NAME})
// must not reach a replica that could outlive a partition's copy of them.
// A partition whose primary could not be asked is sent its URLs again (its
// record answers 0 if they were there).
bool EnqueueIntoOtherPartitions(State& s, std::map<uint32_t, RedisCommand> calls)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  constexpr int kAttempts = 4;
  absl::Status waited;
  for (int attempt = 0; attempt < kAttempts && !calls.empty(); ++attempt) {
    std::vector<RedisCommand> commands;
    for (const auto& [part, call] : calls) commands.push_back(call);
    absl::StatusOr<std::vector<RedisReply>> replies = s.connection->Run(commands);
    if (!replies.ok()) {
      Fail(s, replies.status());
      return false;
    }
    for (const RedisReply& reply : *replies) {
      if (absl::StatusOr<long long> n = ReplyInteger(reply.get()); !n.ok()) {
        Fail(s, n.status());
        return false;
      }
    }
    for (auto it = calls.begin(); it != calls.end();) {
      waited = s.connection->AwaitReplica(s.part_meta[it->first]);
      it = waited.ok() ? calls.erase(it) : std::next(it);
    }
  }
  if (calls.empty()) return true;
  Fail(s, waited);
  return false;
}

}  // namespace

bool ClusterEnqueueStep(State& s, const std::string& owner, const std::string& trip,
                        const std::string& flags, absl::Span<const std::string_view> elements,
                        absl::Span<const std::string_view> hosts) {
  std::string own_flags = flags;  // partition 0's
  if (s.partitions > 1 && !flags.empty()) {
    if (elements.size() != flags.size() || hosts.size() != flags.size()) {
      Fail(s, absl::InternalError("enqueue step: flags, elements and hosts differ in length"));
      return false;
    }
    if (!EnqueueIntoOtherPartitions(
            s, PartitionEnqueueCalls(s, owner, trip, elements, hosts, own_flags))) {
      return false;
    }
  }
  absl::StatusOr<RedisReply> reply = s.connection->Call(
      {"EVALSHA", s.enqueue_sha, "1", s.keys.meta, s.keys.prefix, owner, trip, own_flags});
  absl::StatusOr<long long> enqueued =
      reply.ok() ? ReplyInteger(reply->get()) : absl::StatusOr<long long>(reply.status());
  if (!enqueued.ok()) {
    Fail(s, enqueued.status());
    return false;
  }
  return true;
}

bool ClusterPushUrls(State& s, absl::Span<const std::string_view> urls,
                     absl::Span<const std::string> elements, absl::Span<const std::string> queues,
                     absl::Span<bool> is_new) {
  const size_t per_trip = s.options.push_batch_size * kClusterTripBatches;
  for (size_t first = 0; first < urls.size(); first += per_trip) {
    const size_t count = std::min(urls.size() - first, per_trip);
    const std::string trip = absl::StrCat(++s.push_trips);
    const absl::Span<const std::string_view> part = urls.subspan(first, count);
    // The journal's "host" of each URL is its host lane (lane_queue.h), so a
    // replayed trip enqueues it in its lane.
    std::vector<std::string_view> element_views;
    std::vector<std::string_view> host_views;
    for (size_t i = 0; i < count; ++i) {
      element_views.push_back(elements[first + i]);
      host_views.push_back(queues[first + i]);
    }
    if (!JournalReplicatedTrip(s, element_views, host_views, trip)) return false;
    std::optional<std::string> flags = ClusterFilterStep(s, s.owner, trip, "run", part);
    if (!flags.has_value()) return false;
    if (!ClusterEnqueueStep(s, s.owner, trip, *flags, element_views, host_views)) return false;
    for (size_t i = 0; i < count; ++i) is_new[first + i] = (*flags)[i] == '1';
  }
  return true;
}

}  // namespace sieve::internal
