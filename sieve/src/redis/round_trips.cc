#include "round_trips.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <string>
#include <utility>

#include "../log_emit.h"
#include "../overflow_warning.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lane_queue.h"
#include "push_wire.h"
#include "queue_partitions.h"

namespace sieve::internal {
namespace {

// Pushes are pipelined this many script calls per round trip, so one huge
// PushBatch does not buffer all its commands at once.
constexpr size_t kPushPipelineDepth = 8;

using internal::FilterLayout;

// Appends a URL's shard and k offsets as the push script reads them
// (lua/push.lua): one shard and its offsets, or '*' and "SHARD OFFSET"
// per probe when they span shards (classic layout, several shards).
void AppendProbes(const FilterLayout& layout, const std::vector<uint64_t>& positions,
                  RedisCommand& command) {
  const uint64_t shard = layout.ShardOf(positions.front());
  const bool one_shard = std::all_of(positions.begin(), positions.end(),
                                     [&](uint64_t p) { return layout.ShardOf(p) == shard; });
  command.push_back(one_shard ? absl::StrCat(shard) : "*");
  for (uint64_t p : positions) {
    command.push_back(one_shard ? absl::StrCat(layout.OffsetInShard(p))
                                : absl::StrCat(layout.ShardOf(p), " ", layout.OffsetInShard(p)));
  }
}

// One push script call: per URL, its queue element, its host, its shard and
// offsets.
RedisCommand PushCommand(const State& s, absl::Span<const std::string_view> urls,
                         absl::Span<const std::string> elements,
                         absl::Span<const std::string> queues) {
  RedisCommand command = {"EVALSHA",
                          s.push_sha,
                          "1",
                          s.keys.meta,
                          s.keys.prefix,
                          std::to_string(urls.size()),
                          std::to_string(s.layout.hash_count())};
  command.reserve(command.size() + (3 + s.layout.hash_count()) * urls.size());
  std::vector<uint64_t> positions;
  for (size_t i = 0; i < urls.size(); ++i) {
    command.push_back(elements[i]);
    command.push_back(queues[i]);
    s.layout.Positions(bloom::HashKey(urls[i]), positions);
    AppendProbes(s.layout, positions, command);
  }
  return command;
}

// One CRAWLSIEVE.PUSH call (push_wire.h): the probes of all URLs packed in
// one argument, then each URL's queue element and its host.
RedisCommand ModulePushCommand(const State& s, absl::Span<const std::string_view> urls,
                               absl::Span<const std::string> elements,
                               absl::Span<const std::string> queues) {
  RedisCommand command = {crawlsieve_wire::kPushCommand, s.keys.prefix,
                          std::to_string(s.layout.hash_count()), std::string()};
  command.reserve(command.size() + 2 * urls.size());
  std::string& probes = command[3];
  probes.reserve(urls.size() * s.layout.hash_count() * crawlsieve_wire::kProbeBytes);
  std::vector<uint64_t> positions;
  for (std::string_view url : urls) {
    s.layout.Positions(bloom::HashKey(url), positions);
    for (uint64_t p : positions) {
      crawlsieve_wire::AppendProbe(probes, {static_cast<uint32_t>(s.layout.ShardOf(p)),
                                            static_cast<uint32_t>(s.layout.OffsetInShard(p))});
    }
  }
  for (size_t i = 0; i < urls.size(); ++i) {
    command.push_back(elements[i]);
    command.push_back(queues[i]);
  }
  return command;
}

// Every reply says the command is unknown: the server was restarted without
// the crawlsieve module (or it was unloaded), and none of them ran.
bool ModuleIsGone(const std::vector<RedisReply>& replies) {
  return std::all_of(replies.begin(), replies.end(), [](const RedisReply& r) {
    return r->type == REDIS_REPLY_ERROR &&
           std::string_view(r->str, r->len).find("unknown command") != std::string_view::npos;
  });
}

// NAME:queued as GET returns it: a decimal string, nil before any push.
absl::StatusOr<long long> CounterValue(const redisReply* reply) {
  if (reply->type == REDIS_REPLY_NIL) return 0;
  long long value = 0;
  if (reply->type != REDIS_REPLY_STRING ||
      !absl::SimpleAtoi(absl::string_view(reply->str, reply->len), &value)) {
    return absl::InternalError("NAME:queued is not a number");
  }
  return value;
}

// How long a client's wait for a host counts after its last try (pop
// script): a few of its polls, so a client that stopped trying (it has work
// now) stops blocking the others soon.
std::chrono::milliseconds HungryWindow(const State& s) {
  return std::max(std::chrono::milliseconds(200), 3 * s.options.poll_interval);
}

// The hosts the pop script named surplus (beyond this client's fair share)
// that this client has no URL of: reported idle with the next pop, which
// gives them back (a host's last URL leaving the client reported it once,
// but it stayed while it was not surplus).
void ReportIdleSurplus(State& s, const redisReply* surplus) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  for (size_t i = 0; i < surplus->elements; ++i) {
    std::string host(surplus->element[i]->str, surplus->element[i]->len);
    if (s.host_urls.count(host) > 0) continue;  // reported when its last URL leaves
    if (std::find(s.idle_hosts.begin(), s.idle_hosts.end(), host) == s.idle_hosts.end()) {
      s.idle_hosts.push_back(std::move(host));
    }
  }
}

}  // namespace

bool Usable(const State& s) { return !s.closed && s.failure.ok(); }

void Fail(State& s, const absl::Status& status) {
  if (!s.failure.ok()) return;
  s.failure = status;
  Emit(s.options.log_sink, LogLevel::kError,
       absl::StrCat("redis sieve '", s.options.name, "': ", status.ToString(),
                    "; this client stops (its leases expire and go to others)"));
}

bool PushUrls(State& s, absl::Span<const std::string_view> urls,
              absl::Span<const std::string> elements, absl::Span<const std::string> queues,
              absl::Span<bool> is_new) {
  if (s.keys.cluster) return ClusterPushUrls(s, urls, elements, queues, is_new);
  const size_t batch = s.options.push_batch_size;
  const size_t per_trip = batch * kPushPipelineDepth;
  size_t start = 0;
  while (start < urls.size()) {
    const size_t end = std::min(urls.size(), start + per_trip);
    std::vector<RedisCommand> commands;
    for (size_t b = start; b < end; b += batch) {
      const size_t size = std::min(batch, end - b);
      const absl::Span<const std::string_view> part = urls.subspan(b, size);
      const absl::Span<const std::string> part_elements = elements.subspan(b, size);
      const absl::Span<const std::string> part_queues = queues.subspan(b, size);
      // CRAWLSIEVE.PUSH knows one lane per host (priority 0): a batch with
      // another lane goes through the script.
      const bool lanes = std::any_of(part_queues.begin(), part_queues.end(),
                                     [](const std::string& q) { return IsNonZeroLane(q); });
      commands.push_back(s.push_module && !lanes
                             ? ModulePushCommand(s, part, part_elements, part_queues)
                             : PushCommand(s, part, part_elements, part_queues));
    }
    absl::StatusOr<std::vector<RedisReply>> replies = s.connection->Run(commands);
    if (!replies.ok()) {
      Fail(s, replies.status());
      return false;
    }
    if (s.push_module && ModuleIsGone(*replies)) {
      Emit(s.options.log_sink, LogLevel::kWarning,
           absl::StrCat("redis sieve '", s.options.name,
                        "': the server no longer has the crawlsieve module; pushing "
                        "through the Lua script"));
      s.push_module = false;
      continue;  // the same URLs again, through the script
    }
    for (size_t c = 0; c < commands.size(); ++c) {
      absl::StatusOr<std::string> flags = ReplyString((*replies)[c].get());
      const size_t first = start + c * batch;
      const size_t count = std::min(batch, end - first);
      if (!flags.ok() || flags->size() != count) {
        Fail(s,
             flags.ok() ? absl::InternalError("push script: wrong reply length") : flags.status());
        return false;
      }
      for (size_t i = 0; i < count; ++i) is_new[first + i] = (*flags)[i] == '1';
    }
    start = end;
  }
  return true;
}

namespace {

// One pop script call on partition `part`, with that partition's pending
// acks and idle hosts, asking `want` URLs; the other partitions' figures
// give the fleet-wide fair share (lua/pop.lua).
RedisCommand PopCommand(const State& s, uint32_t part, size_t want,
                        const std::vector<std::string>& acks, const std::vector<std::string>& idle,
                        int64_t floor) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  uint64_t hosts_elsewhere = 0;
  uint64_t held_before = 0;
  uint64_t held_after = 0;
  for (uint32_t i = 0; i < s.partitions; ++i) {
    if (i == part) continue;
    hosts_elsewhere += s.part_figures[i].hosts;
    (i < part ? held_before : held_after) += s.part_figures[i].held;
  }
  RedisCommand command = {"EVALSHA",
                          s.pop_sha,
                          "1",
                          s.part_meta[part],
                          s.part_prefix[part],
                          s.owner,
                          std::to_string(s.options.lease_time.count()),
                          std::to_string(s.options.host_lease_time.count()),
                          std::to_string(s.options.host_cooldown.count()),
                          std::to_string(want),
                          std::to_string(s.options.max_hosts),
                          std::to_string(HungryWindow(s).count()),
                          std::to_string(hosts_elsewhere),
                          std::to_string(held_before),
                          std::to_string(held_after),
                          std::to_string(acks.size())};
  command.insert(command.end(), acks.begin(), acks.end());
  command.push_back(std::to_string(idle.size()));
  command.insert(command.end(), idle.begin(), idle.end());
  command.push_back(floor == State::kLaneNone || floor == State::kLaneUnknown
                        ? std::string()
                        : std::to_string(floor));
  return command;
}

// A pop reply of partition `part` into the state: its URLs into s.prefetched,
// its figures, the surplus hosts to report idle, and a claimed journal
// (partition 0 holds them) replayed. URLs leased; nullopt (and failed) on
// error.
std::optional<size_t> TakePopReply(State& s, uint32_t part, const redisReply* r)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  if (r->type != REDIS_REPLY_ARRAY || r->elements != 12 ||
      r->element[11]->type != REDIS_REPLY_STRING || r->element[0]->type != REDIS_REPLY_ARRAY ||
      r->element[1]->type != REDIS_REPLY_ARRAY || r->element[10]->type != REDIS_REPLY_ARRAY ||
      r->element[0]->elements != r->element[1]->elements ||
      r->element[0]->elements != r->element[10]->elements ||
      r->element[5]->type != REDIS_REPLY_ARRAY || r->element[6]->type != REDIS_REPLY_ARRAY) {
    Fail(s, absl::InternalError(r->type == REDIS_REPLY_ERROR ? std::string(r->str, r->len)
                                                             : "pop script: unexpected reply"));
    return std::nullopt;
  }
  const redisReply* urls = r->element[0];
  const redisReply* hosts = r->element[1];
  const redisReply* lanes = r->element[10];
  for (size_t i = 0; i < urls->elements; ++i) {
    std::string host(hosts->element[i]->str, hosts->element[i]->len);
    if (!host.empty()) ++s.host_urls[host];
    s.prefetched.push_back({std::string(urls->element[i]->str, urls->element[i]->len),
                            std::move(host), static_cast<int32_t>(lanes->element[i]->integer)});
  }
  State::PartitionFigures& figures = s.part_figures[part];
  figures.queued = static_cast<uint64_t>(r->element[2]->integer);
  figures.leases = static_cast<uint64_t>(r->element[3]->integer);
  figures.hosts = static_cast<uint64_t>(r->element[7]->integer);
  figures.held = static_cast<uint64_t>(r->element[8]->integer);
  const std::string_view best(r->element[11]->str, r->element[11]->len);
  int64_t lane = 0;
  figures.best_lane = absl::SimpleAtoi(absl::string_view(best.data(), best.size()), &lane)
                          ? lane
                          : State::kLaneNone;
  if (figures.best_lane != 0 && figures.best_lane != State::kLaneNone) s.lanes_seen = true;
  if (part == 0) {
    s.journals = static_cast<uint64_t>(r->element[4]->integer);
    s.moves = static_cast<uint64_t>(r->element[9]->integer);
  }
  s.queued = 0;
  s.fleet_leases = 0;
  for (const State::PartitionFigures& f : s.part_figures) {
    s.queued += f.queued;
    s.fleet_leases += f.leases;
  }
  ReportIdleSurplus(s, r->element[6]);
  if (r->element[5]->elements > 0) {
    ReplayClaimedJournal(s, r->element[5]);
    if (!s.failure.ok()) return std::nullopt;
  }
  return urls->elements;
}

// One round trip: a pop call on each partition of `parts` (pipelined),
// each with its pending acks and idle hosts, the first asking `want` URLs.
// URLs leased; nullopt (and failed) on error.
std::optional<size_t> PopRound(State& s, const std::vector<uint32_t>& parts, size_t want,
                               int64_t floor = State::kLaneNone)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  std::vector<RedisCommand> commands;
  for (uint32_t part : parts) {
    std::vector<std::string> acks;
    std::vector<std::string> idle;
    std::erase_if(s.acks, [&](State::Ack& ack) {
      if (ack.part != part) return false;
      acks.push_back(std::move(ack.element));
      return true;
    });
    std::erase_if(s.idle_hosts, [&](std::string& host) {
      if (PartitionOfHost(host, s.partitions) != part) return false;
      idle.push_back(std::move(host));
      return true;
    });
    commands.push_back(PopCommand(s, part, commands.empty() ? want : 0, acks, idle,
                                  commands.empty() ? floor : State::kLaneNone));
  }
  absl::StatusOr<std::vector<RedisReply>> replies = s.connection->Run(commands);
  if (!replies.ok()) {
    Fail(s, replies.status());
    return std::nullopt;
  }
  size_t leased = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    std::optional<size_t> got = TakePopReply(s, parts[i], (*replies)[i].get());
    if (!got.has_value()) return std::nullopt;
    leased += *got;
  }
  return leased;
}

// Every partition but `skip` (s.partitions: none skipped), in order.
std::vector<uint32_t> AllPartitionsBut(const State& s, uint32_t skip) {
  std::vector<uint32_t> parts;
  for (uint32_t part = 0; part < s.partitions; ++part) {
    if (part != skip) parts.push_back(part);
  }
  return parts;
}

}  // namespace

namespace {

// The partitions in the order a pop asks them: in turn from `turn`, or,
// once this client met priorities, best lane first (ties in turn), so the
// highest lane of the whole frontier is popped first.
std::vector<uint32_t> PartitionsToAsk(const State& s, uint64_t turn)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  std::vector<uint32_t> order;
  for (uint32_t k = 0; k < s.partitions; ++k) {
    order.push_back(static_cast<uint32_t>((turn + k) % s.partitions));
  }
  if (s.lanes_seen) {
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return s.part_figures[a].best_lane > s.part_figures[b].best_lane;
    });
  }
  return order;
}

// The floor of the pop asking order[k]: the next partition's best lane
// (its URLs of that lane come before this one's lower lanes); none for the
// last, or before priorities were met.
int64_t FloorAfter(const State& s, const std::vector<uint32_t>& order, size_t k)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  if (!s.lanes_seen || k + 1 >= order.size()) return State::kLaneNone;
  return s.part_figures[order[k + 1]].best_lane;
}

}  // namespace

bool AckAndLease(State& s, size_t want) {
  // Without host_key a client's URLs go to the shared queue, partition 0's:
  // asked first, the others only when it falls short.
  const uint64_t turn = s.pop_cursor++;
  const bool by_lane = s.options.host_key && s.partitions > 1 && s.lanes_seen;
  if (by_lane && want > 0 &&
      std::any_of(s.part_figures.begin(), s.part_figures.end(),
                  [](const auto& f) { return f.best_lane == State::kLaneUnknown; })) {
    // Every partition's best lane, once: one pipelined round trip.
    if (!PopRound(s, AllPartitionsBut(s, s.partitions), 0).has_value()) return false;
  }
  const std::vector<uint32_t> order = by_lane ? PartitionsToAsk(s, turn) : std::vector<uint32_t>{};
  const uint32_t first =
      by_lane ? order[0] : (s.options.host_key ? static_cast<uint32_t>(turn % s.partitions) : 0);
  // The partition asked for URLs first, then those with acks or idle hosts
  // pending.
  std::vector<uint32_t> parts = {first};
  for (const State::Ack& ack : s.acks) {
    if (std::find(parts.begin(), parts.end(), ack.part) == parts.end()) parts.push_back(ack.part);
  }
  for (const std::string& host : s.idle_hosts) {
    const uint32_t part = PartitionOfHost(host, s.partitions);
    if (std::find(parts.begin(), parts.end(), part) == parts.end()) parts.push_back(part);
  }
  std::optional<size_t> got =
      PopRound(s, parts, want, by_lane ? FloorAfter(s, order, 0) : State::kLaneNone);
  if (!got.has_value()) return false;
  // Short: the next partitions in turn (best lane first), until `want` or
  // all were asked.
  for (uint32_t k = 1; k < s.partitions && *got < want; ++k) {
    std::optional<size_t> more = by_lane
                                     ? PopRound(s, {order[k]}, want - *got, FloorAfter(s, order, k))
                                     : PopRound(s, {(first + k) % s.partitions}, want - *got);
    if (!more.has_value()) return false;
    *got += *more;
  }
  // Each partition's reply comes highest priority first; across the
  // partitions asked, the same order (stable: FIFO within a priority).
  if (s.partitions > 1) {
    std::stable_sort(s.prefetched.begin(), s.prefetched.end(),
                     [](const State::Prefetched& a, const State::Prefetched& b) {
                       return a.priority > b.priority;
                     });
  }
  // With several partitions only a sweep renews every host lease.
  if (s.partitions == 1) s.last_round_trip = std::chrono::steady_clock::now();
  return true;
}

bool SweepPartitions(State& s) {
  std::vector<uint32_t> parts = AllPartitionsBut(s, s.partitions);
  if (!PopRound(s, parts, 0).has_value()) return false;
  s.last_round_trip = std::chrono::steady_clock::now();
  return true;
}

std::optional<bool> FleetIsFinished(State& s) {
  if (s.partitions == 1) {
    if (!SweepPartitions(s)) return std::nullopt;
    return s.queued == 0 && s.fleet_leases == 0 && s.journals == 0;
  }
  // Partition 0 (NAME:moves), the others, then partition 0 again: a trip
  // that enqueued into a partition after the scan had read it ended (ENQUEUE,
  // which bumps NAME:moves) before the second read, or its journal is still
  // there then; a URL leased is in its partition's leases until acked, and
  // the URLs its page pushed were enqueued before that ack
  // (lua/enqueue.lua; docs/redis.md).
  if (!PopRound(s, {0}, 0).has_value()) return std::nullopt;
  const uint64_t moves = s.moves;
  if (!PopRound(s, AllPartitionsBut(s, 0), 0).has_value()) return std::nullopt;
  if (!PopRound(s, {0}, 0).has_value()) return std::nullopt;
  s.last_round_trip = std::chrono::steady_clock::now();
  return s.moves == moves && s.queued == 0 && s.fleet_leases == 0 && s.journals == 0;
}

void UrlLeftClient(State& s, const std::string& host) {
  if (host.empty()) return;
  auto it = s.host_urls.find(host);
  if (it == s.host_urls.end()) return;
  if (--it->second == 0) {
    s.host_urls.erase(it);
    s.idle_hosts.push_back(host);
  }
}

std::optional<long long> Release(State& s, std::string_view where,
                                 const std::vector<ElementOfHost>& elements, bool all_hosts) {
  std::vector<RedisCommand> commands;
  std::vector<int> command_of(s.partitions, -1);
  auto command_for = [&](uint32_t part) -> RedisCommand& {
    if (command_of[part] < 0) {
      command_of[part] = static_cast<int>(commands.size());
      commands.push_back({"EVALSHA", s.release_sha, "1", s.part_meta[part], s.part_prefix[part],
                          s.owner, std::string(where),
                          std::to_string(s.options.host_cooldown.count()), all_hosts ? "1" : "0"});
    }
    return commands[command_of[part]];
  };
  if (all_hosts) {
    for (uint32_t part = 0; part < s.partitions; ++part) command_for(part);
  }
  for (const ElementOfHost& e : elements) {
    command_for(PartitionOfHost(e.host, s.partitions)).push_back(e.element);
  }
  if (commands.empty()) return 0;
  absl::StatusOr<std::vector<RedisReply>> replies = s.connection->Run(commands);
  if (!replies.ok()) {
    Fail(s, replies.status());
    return std::nullopt;
  }
  long long total = 0;
  for (const RedisReply& reply : *replies) {
    absl::StatusOr<long long> released = ReplyInteger(reply.get());
    if (!released.ok()) {
      Fail(s, released.status());
      return std::nullopt;
    }
    total += *released;
  }
  return total;
}

bool RenewUrlLeases(State& s) {
  if (s.prefetched.empty() && s.in_flight.empty()) return true;
  std::vector<RedisCommand> commands;
  std::vector<int> command_of(s.partitions, -1);
  auto add = [&](const std::string& host, const std::string& element) {
    const uint32_t part = PartitionOfHost(host, s.partitions);
    if (command_of[part] < 0) {
      command_of[part] = static_cast<int>(commands.size());
      commands.push_back({"EVALSHA", s.renew_sha, "1", s.part_meta[part], s.part_prefix[part],
                          s.owner, std::to_string(s.options.lease_time.count())});
    }
    commands[command_of[part]].push_back(element);
  };
  for (const State::Prefetched& p : s.prefetched) add(p.host, p.element);
  for (const auto& [url, flight] : s.in_flight) add(flight.host, flight.element);
  absl::StatusOr<std::vector<RedisReply>> replies = s.connection->Run(commands);
  if (!replies.ok()) {
    Fail(s, replies.status());
    return false;
  }
  for (const RedisReply& reply : *replies) {
    absl::StatusOr<long long> renewed = ReplyInteger(reply.get());
    if (!renewed.ok()) {
      Fail(s, renewed.status());
      return false;
    }
  }
  return true;
}

void RefreshFleetFigures(State& s, bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && s.ever_refreshed && now - s.refreshed < s.options.stats_cache) return;
  if (!s.failure.ok()) return;
  // Per partition its queued count and its leases, then the shards' bits.
  std::vector<RedisCommand> commands;
  for (uint32_t part = 0; part < s.partitions; ++part) {
    commands.push_back({"GET", s.part_prefix[part] + "queued"});
    commands.push_back({"ZCARD", s.part_prefix[part] + "leases"});
  }
  const size_t queue_figures = commands.size();
  for (uint64_t shard = 0; shard < s.layout.ShardCount(); ++shard) {
    commands.push_back({"BITCOUNT", s.keys.ShardKey(shard)});
  }
  absl::StatusOr<std::vector<RedisReply>> replies = s.connection->Run(commands);
  if (!replies.ok()) return Fail(s, replies.status());
  uint64_t bits_set = 0;
  for (size_t i = 0; i < replies->size(); ++i) {
    const bool is_queued = i < queue_figures && i % 2 == 0;
    absl::StatusOr<long long> value =
        is_queued ? CounterValue((*replies)[i].get()) : ReplyInteger((*replies)[i].get());
    if (!value.ok()) return Fail(s, value.status());
    if (i < queue_figures) {
      State::PartitionFigures& figures = s.part_figures[i / 2];
      (is_queued ? figures.queued : figures.leases) = static_cast<uint64_t>(*value);
    } else {
      bits_set += static_cast<uint64_t>(*value);
    }
  }
  s.queued = 0;
  s.fleet_leases = 0;
  for (const State::PartitionFigures& f : s.part_figures) {
    s.queued += f.queued;
    s.fleet_leases += f.leases;
  }
  s.bits_set = bits_set;
  s.refreshed = now;
  s.ever_refreshed = true;
  // The warning of the in-memory Sieve (overflow_warning.h), fleet-wide: at
  // capacity, then at each doubling, once per client.
  const double estimate = s.layout.EstimatedCount(bits_set);
  const double threshold = static_cast<double>(s.layout.capacity()) *
                           static_cast<double>(1ULL << std::min<uint64_t>(s.overflow_warnings, 62));
  if (estimate > threshold) {
    ++s.overflow_warnings;
    OverflowFigures figures;  // a fixed filter shared in Redis: the kWarn case
    figures.estimated_count = estimate;
    figures.expected_count = s.layout.capacity();
    figures.current_fp_rate = s.layout.FpRate(estimate);
    figures.target_fp_rate = s.layout.target_fp_rate();
    figures.memory_bytes = s.layout.bits() / 8;
    Emit(s.options.log_sink, LogLevel::kWarning,
         absl::StrCat("redis sieve '", s.options.name, "': ", FormatOverflowWarning(figures)));
  }
}

}  // namespace sieve::internal
