#include "round_trips.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <string>
#include <utility>

#include "../log_emit.h"
#include "../overflow_warning.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "push_wire.h"

namespace sieve::internal {
namespace {

// Pushes are pipelined this many script calls per round trip, so one huge
// PushBatch does not buffer all its commands at once.
constexpr size_t kPushPipelineDepth = 8;

using internal::FilterLayout;

// Appends a URL's shard and k offsets as the push script reads them
// (scripts.cc, PUSH): one shard and its offsets, or '*' and "SHARD OFFSET"
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
                         absl::Span<const std::string> elements) {
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
    command.push_back(s.options.host_key ? s.options.host_key(urls[i]) : std::string());
    s.layout.Positions(bloom::HashKey(urls[i]), positions);
    AppendProbes(s.layout, positions, command);
  }
  return command;
}

// One CRAWLSIEVE.PUSH call (push_wire.h): the probes of all URLs packed in
// one argument, then each URL's queue element and its host.
RedisCommand ModulePushCommand(const State& s, absl::Span<const std::string_view> urls,
                               absl::Span<const std::string> elements) {
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
    command.push_back(s.options.host_key ? s.options.host_key(urls[i]) : std::string());
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
              absl::Span<const std::string> elements, absl::Span<bool> is_new) {
  if (s.keys.cluster) return ClusterPushUrls(s, urls, elements, is_new);
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
      commands.push_back(s.push_module ? ModulePushCommand(s, part, part_elements)
                                       : PushCommand(s, part, part_elements));
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

bool AckAndLease(State& s, size_t want) {
  RedisCommand command = {"EVALSHA",
                          s.pop_sha,
                          "1",
                          s.keys.meta,
                          s.keys.prefix,
                          s.owner,
                          std::to_string(s.options.lease_time.count()),
                          std::to_string(s.options.host_lease_time.count()),
                          std::to_string(s.options.host_cooldown.count()),
                          std::to_string(want),
                          std::to_string(s.options.max_hosts),
                          std::to_string(HungryWindow(s).count()),
                          std::to_string(s.acks.size())};
  command.insert(command.end(), s.acks.begin(), s.acks.end());
  command.push_back(std::to_string(s.idle_hosts.size()));
  command.insert(command.end(), s.idle_hosts.begin(), s.idle_hosts.end());
  absl::StatusOr<RedisReply> reply = s.connection->Call(command);
  if (!reply.ok()) {
    Fail(s, reply.status());
    return false;
  }
  const redisReply* r = reply->get();
  if (r->type != REDIS_REPLY_ARRAY || r->elements != 7 ||
      r->element[0]->type != REDIS_REPLY_ARRAY || r->element[1]->type != REDIS_REPLY_ARRAY ||
      r->element[0]->elements != r->element[1]->elements ||
      r->element[5]->type != REDIS_REPLY_ARRAY || r->element[6]->type != REDIS_REPLY_ARRAY) {
    Fail(s, absl::InternalError("pop script: unexpected reply"));
    return false;
  }
  s.acks.clear();
  s.idle_hosts.clear();
  s.last_round_trip = std::chrono::steady_clock::now();
  const redisReply* urls = r->element[0];
  const redisReply* hosts = r->element[1];
  for (size_t i = 0; i < urls->elements; ++i) {
    std::string host(hosts->element[i]->str, hosts->element[i]->len);
    if (!host.empty()) ++s.host_urls[host];
    s.leased.emplace_back(std::string(urls->element[i]->str, urls->element[i]->len),
                          std::move(host));
  }
  s.queued = static_cast<uint64_t>(r->element[2]->integer);
  s.leases = static_cast<uint64_t>(r->element[3]->integer);
  s.journals = static_cast<uint64_t>(r->element[4]->integer);
  ReportIdleSurplus(s, r->element[6]);
  if (r->element[5]->elements > 0) {
    ReplayClaimedJournal(s, r->element[5]);
    return s.failure.ok();
  }
  return true;
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
                                 const std::vector<std::string>& elements, bool all_hosts) {
  RedisCommand command = {"EVALSHA",
                          s.release_sha,
                          "1",
                          s.keys.meta,
                          s.keys.prefix,
                          s.owner,
                          std::string(where),
                          std::to_string(s.options.host_cooldown.count()),
                          all_hosts ? "1" : "0"};
  command.insert(command.end(), elements.begin(), elements.end());
  absl::StatusOr<RedisReply> reply = s.connection->Call(command);
  absl::StatusOr<long long> released =
      reply.ok() ? ReplyInteger(reply->get()) : absl::StatusOr<long long>(reply.status());
  if (!released.ok()) {
    Fail(s, released.status());
    return std::nullopt;
  }
  return *released;
}

bool RenewUrlLeases(State& s) {
  if (s.leased.empty() && s.in_flight.empty()) return true;
  RedisCommand command = {"EVALSHA",
                          s.renew_sha,
                          "1",
                          s.keys.meta,
                          s.keys.prefix,
                          s.owner,
                          std::to_string(s.options.lease_time.count())};
  command.reserve(command.size() + s.leased.size() + s.in_flight.size());
  for (const auto& [element, host] : s.leased) command.push_back(element);
  for (const auto& [url, flight] : s.in_flight) command.push_back(flight.element);
  absl::StatusOr<RedisReply> reply = s.connection->Call(command);
  absl::StatusOr<long long> renewed =
      reply.ok() ? ReplyInteger(reply->get()) : absl::StatusOr<long long>(reply.status());
  if (!renewed.ok()) {
    Fail(s, renewed.status());
    return false;
  }
  return true;
}

void RefreshFleetFigures(State& s, bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && s.ever_refreshed && now - s.refreshed < s.options.stats_cache) return;
  if (!s.failure.ok()) return;
  std::vector<RedisCommand> commands = {{"GET", s.keys.queued}, {"ZCARD", s.keys.leases}};
  for (uint64_t shard = 0; shard < s.layout.ShardCount(); ++shard) {
    commands.push_back({"BITCOUNT", s.keys.ShardKey(shard)});
  }
  absl::StatusOr<std::vector<RedisReply>> replies = s.connection->Run(commands);
  if (!replies.ok()) return Fail(s, replies.status());
  uint64_t bits_set = 0;
  for (size_t i = 0; i < replies->size(); ++i) {
    absl::StatusOr<long long> value =
        i == 0 ? CounterValue((*replies)[i].get()) : ReplyInteger((*replies)[i].get());
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
