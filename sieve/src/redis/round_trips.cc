#include "round_trips.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "../overflow_warning.h"
#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace sieve::internal {
namespace {

// Pushes are pipelined this many script calls per round trip, so one huge
// PushBatch does not buffer all its commands at once.
constexpr size_t kPushPipelineDepth = 8;

// Probes per BITFIELD call in the push script (Lua's unpack limit).
constexpr size_t kProbesPerChunk = 1000;

// One shard's probes in URL order: runs of (URL index, probe count) and the
// BITFIELD arguments.
struct ShardProbes {
  std::vector<std::pair<size_t, size_t>> runs;
  std::vector<uint64_t> offsets;
};

// Appends `probes` as chunks of at most kProbesPerChunk (scripts.cc, PUSH).
void AppendChunks(RedisCommand& command, const std::string& key, const ShardProbes& probes) {
  size_t run = 0;
  size_t used_of_run = 0;  // probes of runs[run] already in earlier chunks
  size_t next = 0;         // next offset to send
  while (next < probes.offsets.size()) {
    const size_t count = std::min(kProbesPerChunk, probes.offsets.size() - next);
    std::vector<std::pair<size_t, size_t>> runs;
    for (size_t left = count; left > 0;) {
      const size_t take = std::min(left, probes.runs[run].second - used_of_run);
      runs.emplace_back(probes.runs[run].first, take);
      left -= take;
      used_of_run += take;
      if (used_of_run == probes.runs[run].second) {
        ++run;
        used_of_run = 0;
      }
    }
    command.push_back(key);
    command.push_back(std::to_string(count));
    command.push_back(std::to_string(runs.size()));
    for (const auto& [index, length] : runs) {
      command.push_back(std::to_string(index));
      command.push_back(std::to_string(length));
    }
    for (size_t i = next; i < next + count; ++i) {
      command.insert(command.end(), {"SET", "u1", std::to_string(probes.offsets[i]), "1"});
    }
    next += count;
  }
}

// One push script call: the URLs, then per shard their probes.
RedisCommand PushCommand(const State& s, absl::Span<const std::string_view> urls) {
  RedisCommand command = {"EVALSHA", s.push_sha, "1", s.keys.queue, std::to_string(urls.size())};
  std::map<uint64_t, ShardProbes> by_shard;
  std::vector<uint64_t> positions;
  for (size_t i = 0; i < urls.size(); ++i) {
    command.emplace_back(urls[i]);
    s.layout.Positions(bloom::HashKey(urls[i]), positions);
    for (uint64_t p : positions) {
      ShardProbes& probes = by_shard[s.layout.ShardOf(p)];
      if (probes.runs.empty() || probes.runs.back().first != i + 1) {
        probes.runs.emplace_back(i + 1, 0);
      }
      ++probes.runs.back().second;
      probes.offsets.push_back(s.layout.OffsetInShard(p));
    }
  }
  for (const auto& [shard, probes] : by_shard)
    AppendChunks(command, s.keys.ShardKey(shard), probes);
  return command;
}

}  // namespace

bool Usable(const State& s) { return !s.closed && s.failure.ok(); }

void Fail(State& s, const absl::Status& status) {
  if (!s.failure.ok()) return;
  s.failure = status;
  spdlog::error("redis sieve '{}': {}; this client stops (its leases expire and go to others)",
                s.options.name, status.ToString());
}

bool PushUrls(State& s, absl::Span<const std::string_view> urls, absl::Span<bool> is_new) {
  const size_t batch = s.options.push_batch_size;
  const size_t per_trip = batch * kPushPipelineDepth;
  for (size_t start = 0; start < urls.size(); start += per_trip) {
    const size_t end = std::min(urls.size(), start + per_trip);
    std::vector<RedisCommand> commands;
    for (size_t b = start; b < end; b += batch) {
      commands.push_back(PushCommand(s, urls.subspan(b, std::min(batch, end - b))));
    }
    absl::StatusOr<std::vector<RedisReply>> replies = s.connection->Run(commands);
    if (!replies.ok()) {
      Fail(s, replies.status());
      return false;
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
  }
  return true;
}

bool AckAndLease(State& s, size_t want) {
  RedisCommand command = {"EVALSHA",
                          s.pop_sha,
                          "3",
                          s.keys.queue,
                          s.keys.leases,
                          s.keys.owners,
                          s.owner,
                          std::to_string(s.options.lease_time.count()),
                          std::to_string(want),
                          std::to_string(s.acks.size())};
  command.insert(command.end(), s.acks.begin(), s.acks.end());
  absl::StatusOr<RedisReply> reply = s.connection->Call(command);
  if (!reply.ok()) {
    Fail(s, reply.status());
    return false;
  }
  const redisReply* r = reply->get();
  if (r->type != REDIS_REPLY_ARRAY || r->elements != 3 ||
      r->element[0]->type != REDIS_REPLY_ARRAY) {
    Fail(s, absl::InternalError("pop script: unexpected reply"));
    return false;
  }
  s.acks.clear();
  const redisReply* urls = r->element[0];
  for (size_t i = 0; i < urls->elements; ++i) {
    s.leased.emplace_back(urls->element[i]->str, urls->element[i]->len);
  }
  s.queued = static_cast<uint64_t>(r->element[1]->integer);
  s.leases = static_cast<uint64_t>(r->element[2]->integer);
  return true;
}

std::optional<long long> Release(State& s, std::string_view where,
                                 const std::vector<std::string>& urls) {
  RedisCommand command = {"EVALSHA",     s.release_sha, "3",     s.keys.queue,
                          s.keys.leases, s.keys.owners, s.owner, std::string(where)};
  command.insert(command.end(), urls.begin(), urls.end());
  absl::StatusOr<RedisReply> reply = s.connection->Call(command);
  absl::StatusOr<long long> released =
      reply.ok() ? ReplyInteger(reply->get()) : absl::StatusOr<long long>(reply.status());
  if (!released.ok()) {
    Fail(s, released.status());
    return std::nullopt;
  }
  return *released;
}

void RefreshFleetFigures(State& s, bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && s.ever_refreshed && now - s.refreshed < s.options.stats_cache) return;
  if (!s.failure.ok()) return;
  std::vector<RedisCommand> commands = {{"LLEN", s.keys.queue}, {"ZCARD", s.keys.leases}};
  for (uint64_t shard = 0; shard < s.layout.ShardCount(); ++shard) {
    commands.push_back({"BITCOUNT", s.keys.ShardKey(shard)});
  }
  absl::StatusOr<std::vector<RedisReply>> replies = s.connection->Run(commands);
  if (!replies.ok()) return Fail(s, replies.status());
  uint64_t bits_set = 0;
  for (size_t i = 0; i < replies->size(); ++i) {
    absl::StatusOr<long long> value = ReplyInteger((*replies)[i].get());
    if (!value.ok()) return Fail(s, value.status());
    if (i == 0) s.queued = static_cast<uint64_t>(*value);
    if (i == 1) s.leases = static_cast<uint64_t>(*value);
    if (i >= 2) bits_set += static_cast<uint64_t>(*value);
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
    spdlog::warn("redis sieve '{}': {}", s.options.name,
                 FormatOverflowWarning(estimate, s.layout.capacity(), s.layout.FpRate(estimate),
                                       s.layout.target_fp_rate()));
  }
}

}  // namespace sieve::internal
