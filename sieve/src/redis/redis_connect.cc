// RedisSieve::Connect: options, connection, scripts, and the parameters in
// NAME:meta that every process of the fleet must share.
#include <hiredis/hiredis.h>
#include <unistd.h>

#include <functional>
#include <random>
#include <thread>
#include <utility>

#include "../log_emit.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "batch_codec.h"
#include "cluster/cluster_connection.h"
#include "heartbeat.h"
#include "queue_partitions.h"
#include "redis_state.h"
#include "round_trips.h"
#include "scripts.h"

namespace sieve {
namespace {

absl::Status Validate(const RedisSieveOptions& o) {
  auto bad = [](const char* field, const char* why) {
    return absl::InvalidArgumentError(absl::StrCat("RedisSieveOptions.", field, " ", why));
  };
  if (o.name.empty()) return bad("name", "must not be empty");
  if (o.host.empty()) return bad("host", "must not be empty");
  if (o.port < 1 || o.port > 65535) return bad("port", "must be in [1, 65535]");
  if (o.push_batch_size < 1) return bad("push_batch_size", "must be >= 1");
  if (o.pop_batch_size < 1) return bad("pop_batch_size", "must be >= 1");
  if (o.done_batch_size < 1) return bad("done_batch_size", "must be >= 1");
  if (o.lease_time.count() < 1) return bad("lease_time", "must be >= 1 ms");
  if (o.host_lease_time.count() < 1) return bad("host_lease_time", "must be >= 1 ms");
  if (o.host_cooldown.count() < 0) return bad("host_cooldown", "must be >= 0");
  if (o.max_hosts < 1) return bad("max_hosts", "must be >= 1");
  if (o.io_timeout.count() < 1) return bad("io_timeout", "must be >= 1 ms");
  if (o.retry.max_attempts < 1) return bad("retry.max_attempts", "must be >= 1");
  if (o.queue_partitions > internal::kMaxQueuePartitions) {
    return bad("queue_partitions", "must be at most 1024");
  }
  if (o.cluster_nodes.empty() && o.queue_partitions > 1) {
    return bad("queue_partitions",
               "must be 0 or 1 on one Redis server (partitions spread a "
               "queue over a cluster's primaries)");
  }
  if (!o.cluster_nodes.empty() && o.layout != bloom::Layout::kBlocked) {
    // Classic probes spread a URL's bits over shards (slots): no atomic
    // test-and-set of a URL could span them.
    return bad("layout", "must be kBlocked on a Redis Cluster (a URL's bits in one shard)");
  }
  return absl::OkStatus();
}

// "HOST:PORT", or "the cluster of HOST:PORT,..." for messages.
std::string Where(const RedisSieveOptions& o) {
  if (o.cluster_nodes.empty()) return absl::StrCat(o.host, ":", o.port);
  return absl::StrCat("the cluster of ", absl::StrJoin(o.cluster_nodes, ","));
}

// hostname:pid:random, unique across the fleet and across restarts.
std::string ClientId() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::random_device random;
  const uint64_t nonce = (uint64_t{random()} << 32) | random();
  return absl::StrFormat("%s:%d:%016x", host, getpid(), nonce);
}

// A packed frontier needs the module wherever its queues live.
absl::Status RefuseWithoutPacker(const RedisKeys& keys, const RedisSieveOptions& options) {
  return absl::DataLossError(absl::StrCat(
      "redis frontier '", options.name, "' at ", Where(options), ": key ", keys.meta,
      " says its host queues hold packed batches (", crawlsieve_wire::kPackedMetaField + 1,
      "), which need the crawlsieve module (CRAWLSIEVE.UNPACK), and this server (on a cluster: "
      "some primary) does not have it loaded: start redis-server with --loadmodule "
      ".../crawlsieve.so, or choose another "
      "name to start over"));
}

// Writes the parameters if this is the first process (SET NX), then checks
// that what is there is what these options give; returns what is there.
// `filter` is the filter's part (FilterLayout::MetaString), `ours` that
// with the queue's fields this client would create (queue_partitions.h,
// ComposeMeta): whether the queue is packed, and over how many partitions,
// is the creator's choice, any other client follows it, or is refused
// first thing if the servers cannot unpack (`server_packs` false).
absl::StatusOr<std::string> AgreeOnParameters(internal::RedisLink& c, const RedisKeys& keys,
                                              const RedisSieveOptions& options,
                                              const std::string& filter, const std::string& ours,
                                              bool server_packs) {
  absl::StatusOr<std::vector<internal::RedisReply>> replies =
      c.Run({{"SET", keys.meta, ours, "NX"}, {"GET", keys.meta}});
  if (!replies.ok()) return replies.status();
  absl::StatusOr<std::string> stored = internal::ReplyString((*replies)[1].get());
  if (!stored.ok()) return stored.status();
  if (!server_packs && absl::EndsWith(*stored, crawlsieve_wire::kPackedMetaField)) {
    return RefuseWithoutPacker(keys, options);
  }
  const std::optional<internal::MetaFields> fields = internal::SplitMeta(*stored);
  if (fields.has_value() && fields->filter == filter &&
      (fields->partitions == 1 || !options.cluster_nodes.empty())) {
    return *stored;
  }
  if (!absl::StartsWith(*stored, absl::StrCat(internal::FilterLayout::kMetaVersion, " "))) {
    // Another build's format: refused as crawl refuses a checkpoint of
    // another version (DataLoss: exit 2, "bad state"), never misread.
    const std::string found = stored->substr(0, stored->find(' '));
    return absl::DataLossError(absl::StrCat(
        "redis frontier '", options.name, "' at ", Where(options), ": key ", keys.meta,
        " says format ", found, " ('", *stored, "'), this build reads and writes ",
        internal::FilterLayout::kMetaVersion,
        " (host queues of packed URL batches); written by an older build: finish that crawl "
        "with the build that started it, or delete its keys (",
        keys.prefix, "*) or choose another name to start over"));
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "redis frontier '", options.name, "' at ", Where(options), " was created with parameters '",
      *stored, "' but these options give '", ours,
      "': every process must use the same expected_count, fp_rate, layout and shard size "
      "(or choose another name)"));
}

// True if the server holding NAME's keys has the crawlsieve module's
// CRAWLSIEVE.PACK: COMMAND INFO from a script routed by NAME:meta (a script
// sees the node it runs on). On a cluster every primary must have it (the
// queue's partitions spread over them).
absl::StatusOr<bool> ServerPacksBatches(internal::RedisLink& c, const RedisKeys& keys) {
  if (keys.cluster) return c.EveryServerKnows("crawlsieve.pack");
  absl::StatusOr<internal::RedisReply> reply =
      c.Call({"EVAL", "return redis.call('COMMAND', 'INFO', 'crawlsieve.pack')[1] and 1 or 0", "1",
              keys.meta});
  if (!reply.ok()) return reply.status();
  return reply->get()->type == REDIS_REPLY_INTEGER && reply->get()->integer == 1;
}

// True if pushes should go through the crawlsieve module: one server has
// its CRAWLSIEVE.PUSH, or every primary of a cluster its CRAWLSIEVE.FILTER
// (the cluster's filter step; checked again after each re-read of the slot
// map: cluster_push.cc). CRAWLSIEVE.PUSH's probes name shards in 32 bits: a
// filter of more shards (tiny shards, huge m) stays on Lua.
absl::StatusOr<bool> ShouldUsePushModule(internal::RedisLink& c, const RedisSieveOptions& options,
                                         const internal::FilterLayout& layout) {
  if (!options.use_push_module) return false;
  if (!options.cluster_nodes.empty()) return c.EveryServerKnows("crawlsieve.filter");
  if (layout.ShardCount() > (uint64_t{1} << 32)) return false;
  return c.EveryServerKnows("crawlsieve.push");
}

absl::StatusOr<std::unique_ptr<internal::RedisLink>> OpenLink(const RedisSieveOptions& options) {
  if (!options.cluster_nodes.empty()) {
    absl::StatusOr<std::unique_ptr<internal::ClusterConnection>> c =
        internal::ClusterConnection::Open(options);
    if (!c.ok()) return c.status();
    return std::unique_ptr<internal::RedisLink>(*std::move(c));
  }
  absl::StatusOr<std::unique_ptr<internal::RedisConnection>> c =
      internal::RedisConnection::Open(options);
  if (!c.ok()) return c.status();
  return std::unique_ptr<internal::RedisLink>(*std::move(c));
}

// The queue partitions a new frontier gets from these options.
uint32_t PartitionsToCreate(const RedisSieveOptions& options) {
  if (options.cluster_nodes.empty()) return 1;
  if (options.queue_partitions == 0) return internal::kDefaultClusterPartitions;
  return options.queue_partitions;
}

// The partitions' key prefixes and copies of NAME:meta (each partition's
// scripts read it: packed or not; and it routes their calls), written if
// missing (SET NX: every client writes them, so one that finds the
// frontier just created never waits for its creator), and checked after
// every reconnection as NAME:meta is.
absl::Status OpenPartitions(internal::RedisLink& c, RedisSieve::State& state,
                            const std::string& meta, uint32_t partitions) {
  state.partitions = partitions;
  state.part_prefix = {state.keys.prefix};
  state.part_meta = {state.keys.meta};
  if (partitions > 1)
    state.part_prefix = internal::PartitionPrefixes(state.options.name, partitions);
  std::vector<internal::RedisCommand> copies;
  for (uint32_t part = 1; part < partitions; ++part) {
    state.part_meta.push_back(state.part_prefix[part] + "meta");
    copies.push_back({"SET", state.part_meta.back(), meta, "NX"});
    c.RequireOnReconnect(state.part_meta.back(), meta);
  }
  if (copies.empty()) return absl::OkStatus();
  absl::StatusOr<std::vector<internal::RedisReply>> replies = c.Run(copies);
  if (!replies.ok()) return replies.status();
  for (const internal::RedisReply& reply : *replies) {
    if (reply->type == REDIS_REPLY_ERROR) {
      return absl::InternalError(std::string(reply->str, reply->len));
    }
  }
  return absl::OkStatus();
}

}  // namespace

RedisKeys::RedisKeys(const std::string& name_in, bool cluster_in)
    : name(name_in),
      cluster(cluster_in),
      prefix(cluster ? absl::StrCat("{", name, "}:") : name + ":"),
      meta(prefix + "meta"),
      pages(prefix + "pages") {}

std::string RedisKeys::ShardKey(uint64_t shard) const {
  if (cluster) return absl::StrCat("{", name, ":bits:", shard, "}");
  return absl::StrCat(prefix, "bits:", shard);
}

std::string RedisKeys::ShardTripKey(uint64_t shard, const std::string& owner) const {
  return absl::StrCat(ShardKey(shard), ":trip:", owner);
}

RedisSieve::State::State(const RedisSieveOptions& options_in, internal::FilterLayout layout_in)
    : options(options_in),
      layout(layout_in),
      keys(options_in.name, !options_in.cluster_nodes.empty()),
      owner(ClientId()) {}

RedisSieve::RedisSieve(std::unique_ptr<State> state) : state_(std::move(state)) {}

absl::StatusOr<std::unique_ptr<RedisSieve>> RedisSieve::Connect(const RedisSieveOptions& options) {
  if (absl::Status s = Validate(options); !s.ok()) return s;
  absl::StatusOr<internal::FilterLayout> layout = internal::FilterLayout::For(options);
  if (!layout.ok()) return layout.status();
  auto state = std::make_unique<State>(options, *layout);
  absl::StatusOr<std::unique_ptr<internal::RedisLink>> connection = OpenLink(options);
  if (!connection.ok()) return connection.status();
  internal::RedisLink& c = **connection;
  absl::StatusOr<bool> packer = ServerPacksBatches(c, state->keys);
  if (!packer.ok()) return packer.status();
  const std::string filter = layout->MetaString();
  const std::string ours = internal::ComposeMeta(filter, PartitionsToCreate(options),
                                                 options.pack_queue_batches && *packer);
  absl::StatusOr<std::string> meta =
      AgreeOnParameters(c, state->keys, options, filter, ours, *packer);
  if (!meta.ok()) return meta.status();
  const internal::MetaFields fields = *internal::SplitMeta(*meta);
  state->packed_batches = fields.packed;
  c.RequireOnReconnect(state->keys.meta, *meta);
  if (absl::Status s = OpenPartitions(c, *state, *meta, fields.partitions); !s.ok()) return s;
  for (auto [source, sha] : {std::pair{internal::PushScript(), &state->push_sha},
                             std::pair{internal::PopScript(), &state->pop_sha},
                             std::pair{internal::ReleaseScript(), &state->release_sha},
                             std::pair{internal::RenewScript(), &state->renew_sha},
                             std::pair{internal::TakePageScript(), &state->take_page_sha},
                             std::pair{internal::JournalScript(), &state->journal_sha},
                             std::pair{internal::FilterScript(), &state->filter_sha},
                             std::pair{internal::EnqueueScript(), &state->enqueue_sha},
                             std::pair{internal::EnqueuePartScript(), &state->enqueue_part_sha}}) {
    absl::StatusOr<std::string> loaded = c.Register(source);
    if (!loaded.ok()) return loaded.status();
    *sha = *loaded;
  }
  absl::StatusOr<bool> push_module = ShouldUsePushModule(c, options, *layout);
  if (!push_module.ok()) return push_module.status();
  internal::Emit(
      options.log_sink, LogLevel::kDebug,
      absl::StrFormat("redis sieve '%s' at %s: %s (%d shard keys), client %s, push by %s",
                      options.name, Where(options), *meta, layout->ShardCount(), state->owner,
                      *push_module ? "the crawlsieve module" : "the Lua script"));
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    state->connection = *std::move(connection);
    state->part_figures.resize(state->partitions);
    state->push_module = *push_module;
    state->module_epoch = c.ServersEpoch();
    state->last_round_trip = std::chrono::steady_clock::now();
    state->last_url_renewal = state->last_round_trip;
    // With host partitions: one empty pop now, so the fleet counts this
    // client among the live ones (its fair share of hosts) from the start.
    if (options.host_key && !internal::SweepPartitions(*state)) return state->failure;
  }
  if (options.host_key || options.renew_url_leases) {
    state->heartbeat = std::thread(internal::RunHeartbeat, std::ref(*state));
  }
  return std::unique_ptr<RedisSieve>(new RedisSieve(std::move(state)));
}

}  // namespace sieve
