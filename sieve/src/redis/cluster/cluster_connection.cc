#include "cluster_connection.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <thread>
#include <utility>

#include "../../log_emit.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace sieve::internal {
namespace {

// "connected_slaves:N" of INFO replication; 0 if absent.
long long ConnectedReplicas(absl::string_view info) {
  constexpr absl::string_view kField = "connected_slaves:";
  const size_t at = info.find(kField);
  long long n = 0;
  if (at == absl::string_view::npos) return 0;
  const size_t end = info.find_first_of("\r\n", at);
  const absl::string_view digits = info.substr(at + kField.size(), end - at - kField.size());
  return absl::SimpleAtoi(digits, &n) ? n : 0;
}

// Redirections followed in one Run beyond its failed attempts: a slot moves
// at most once or twice during a Run (MOVED, then ASK while it migrates).
constexpr int kMaxRedirections = 16;

// A redirection or a refusal parsed from an error reply.
struct ClusterError {
  enum Kind { kNone, kMoved, kAsk, kRetry } kind = kNone;
  int slot = -1;
  std::string address;  // MOVED / ASK target, "host:port"
};

ClusterError ClassifyClusterError(const redisReply* reply) {
  ClusterError e;
  if (reply == nullptr || reply->type != REDIS_REPLY_ERROR) return e;
  const absl::string_view text(reply->str, reply->len);
  const bool moved = absl::StartsWith(text, "MOVED ");
  if (moved || absl::StartsWith(text, "ASK ")) {
    std::vector<absl::string_view> parts = absl::StrSplit(text, ' ');
    if (parts.size() == 3 && absl::SimpleAtoi(parts[1], &e.slot)) {
      e.kind = moved ? ClusterError::kMoved : ClusterError::kAsk;
      e.address = std::string(parts[2]);
    }
    return e;
  }
  for (absl::string_view transient : {"TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN", "LOADING"}) {
    if (absl::StartsWith(text, transient)) e.kind = ClusterError::kRetry;
  }
  return e;
}

bool SplitAddress(const std::string& address, std::string& host, int& port) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return false;
  host = address.substr(0, colon);
  // "host:port@cport" in some replies: the bus port is not ours.
  absl::string_view rest = absl::string_view(address).substr(colon + 1);
  rest = rest.substr(0, rest.find('@'));
  return !host.empty() && absl::SimpleAtoi(rest, &port) && port > 0 && port < 65536;
}

}  // namespace

std::optional<std::string> RoutingKey(const RedisCommand& command) {
  if (command.size() < 2) return std::nullopt;
  const std::string name = absl::AsciiStrToUpper(command[0]);
  if (name == "EVALSHA" || name == "EVAL") {
    if (command.size() > 3 && command[2] != "0") return command[3];
    return std::nullopt;
  }
  if (name == "MEMORY") return command.size() > 2 ? std::optional(command[2]) : std::nullopt;
  for (const char* keyless : {"PING", "SCRIPT", "INFO", "COMMAND", "CLUSTER", "ASKING"}) {
    if (name == keyless) return std::nullopt;
  }
  return command[1];
}

ClusterConnection::ClusterConnection(const RedisSieveOptions& options)
    : node_options_(options), retry_(options.retry), seeds_(options.cluster_nodes) {
  node_options_.retry.max_attempts = 1;
  slot_owner_.fill(-1);
}

absl::StatusOr<std::unique_ptr<ClusterConnection>> ClusterConnection::Open(
    const RedisSieveOptions& options) {
  std::unique_ptr<ClusterConnection> c(new ClusterConnection(options));
  std::chrono::milliseconds backoff = options.retry.first_backoff;
  absl::Status read;
  for (int attempt = 1; attempt <= options.retry.max_attempts; ++attempt) {
    if (attempt > 1) {
      std::this_thread::sleep_for(backoff);
      backoff = std::min(backoff * 2, options.retry.max_backoff);
    }
    read = c->ReadSlotMap();
    if (read.ok()) return c;
  }
  return read;
}

void ClusterConnection::RequireOnReconnect(std::string key, std::string value) {
  required_.emplace_back(std::move(key), std::move(value));
}

absl::Status ClusterConnection::CheckRequired() {
  for (const auto& [key, value] : required_) {
    const std::string address = PrimaryOf(KeySlot(key));
    absl::StatusOr<RedisConnection*> node = Node(address);
    if (!node.ok()) continue;
    absl::StatusOr<std::vector<RedisReply>> got = (*node)->Run({{"GET", key}});
    if (!got.ok()) continue;
    const redisReply* r = (*got)[0].get();
    // An error reply (ASK, MOVED, CLUSTERDOWN) is not an answer.
    if (r->type == REDIS_REPLY_ERROR) continue;
    if (r->type == REDIS_REPLY_STRING && absl::string_view(r->str, r->len) == value) continue;
    return absl::DataLossError(
        absl::StrCat("redis cluster: ", address, " serves ", key,
                     "'s slot without it (a replica promoted before it had synced, or a primary "
                     "restarted without persistence?): the shared frontier is lost"));
  }
  return absl::OkStatus();
}

absl::StatusOr<RedisConnection*> ClusterConnection::Node(const std::string& address) {
  auto it = nodes_.find(address);
  if (it != nodes_.end()) return it->second.get();
  RedisSieveOptions options = node_options_;
  if (!SplitAddress(address, options.host, options.port)) {
    return absl::InternalError(absl::StrCat("redis cluster: bad node address '", address, "'"));
  }
  absl::StatusOr<std::unique_ptr<RedisConnection>> opened = RedisConnection::Open(options);
  if (!opened.ok()) return opened.status();
  for (const std::string& source : scripts_) {
    absl::StatusOr<std::string> sha = (*opened)->Register(source);
    if (!sha.ok()) return sha.status();
  }
  RedisConnection* node = opened->get();
  nodes_[address] = *std::move(opened);
  return node;
}

absl::Status ClusterConnection::ReadSlotMap() {
  ++map_reads_;
  std::vector<std::string> candidates = addresses_;
  candidates.insert(candidates.end(), seeds_.begin(), seeds_.end());
  absl::Status last = absl::UnavailableError("redis cluster: no seed node given");
  for (const std::string& candidate : candidates) {
    absl::StatusOr<RedisConnection*> node = Node(candidate);
    if (!node.ok()) {
      last = node.status();
      continue;
    }
    absl::StatusOr<RedisReply> reply = (*node)->Call({"CLUSTER", "SLOTS"});
    if (!reply.ok()) {
      last = reply.status();
      continue;
    }
    const redisReply* r = reply->get();
    std::vector<std::string> addresses;
    std::array<int16_t, kClusterSlots> owner;
    owner.fill(-1);
    size_t covered = 0;
    for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; ++i) {
      const redisReply* range = r->element[i];
      if (range->type != REDIS_REPLY_ARRAY || range->elements < 3) continue;
      const redisReply* primary = range->element[2];
      if (primary->type != REDIS_REPLY_ARRAY || primary->elements < 2) continue;
      std::string host(primary->element[0]->str, primary->element[0]->len);
      if (host.empty() || host == "?") host = candidate.substr(0, candidate.rfind(':'));
      const std::string address = absl::StrCat(host, ":", primary->element[1]->integer);
      auto at = std::find(addresses.begin(), addresses.end(), address);
      if (at == addresses.end()) at = addresses.insert(addresses.end(), address);
      const auto index = static_cast<int16_t>(at - addresses.begin());
      const long long first = std::max(0LL, range->element[0]->integer);
      const long long last_slot =
          std::min<long long>(kClusterSlots - 1, range->element[1]->integer);
      for (long long slot = first; slot <= last_slot; ++slot) {
        if (owner[slot] < 0) ++covered;
        owner[slot] = index;
      }
    }
    if (covered != kClusterSlots) {
      last = absl::UnavailableError(absl::StrCat("redis cluster: ", candidate, " maps ", covered,
                                                 " of ", kClusterSlots, " slots"));
      continue;
    }
    addresses_ = std::move(addresses);
    replicas_.clear();  // asked again: a failover changes who has replicas
    slot_owner_ = owner;
    return absl::OkStatus();
  }
  return absl::UnavailableError(
      absl::StrCat("redis cluster: no node gave a slot map: ", last.message()));
}

absl::StatusOr<std::string> ClusterConnection::Register(const std::string& source) {
  scripts_.push_back(source);
  std::string sha;
  for (const std::string& address : addresses_) {
    // Loaded on the nodes known now; Node() loads all on a new one.
    absl::StatusOr<RedisConnection*> node = Node(address);
    if (!node.ok()) return node.status();
    absl::StatusOr<std::string> loaded = (*node)->Register(source);
    if (!loaded.ok()) return loaded.status();
    sha = *loaded;
  }
  return sha;
}

absl::StatusOr<bool> ClusterConnection::EveryServerKnows(const std::string& command) {
  if (addresses_.empty()) return false;
  for (const std::string& address : addresses_) {
    // Two tries: a connection the server dropped since its last use fails
    // once, then opens again.
    absl::StatusOr<RedisReply> reply = absl::UnavailableError("not asked");
    for (int attempt = 0; attempt < 2 && !reply.ok(); ++attempt) {
      absl::StatusOr<RedisConnection*> node = Node(address);
      if (node.ok()) reply = (*node)->Call({"COMMAND", "INFO", command});
    }
    if (!reply.ok() || !CommandInfoDescribes(reply->get())) return false;
  }
  return true;
}

absl::Status ClusterConnection::AwaitReplica(const std::string& key) {
  // Replication on a LAN takes well under a millisecond; a replica that
  // takes longer than this is late or gone, and is not waited for until the
  // primary is asked again.
  constexpr char kTimeoutMs[] = "250";
  // The primary is asked how many replicas it streams to (the slot map a
  // node gives lists them only once gossip has told it), at the first wait
  // after each map read and every kAskEvery waits, so a replica attached
  // later is waited for too.
  constexpr uint32_t kAskEvery = 1024;
  const std::string address = PrimaryOf(KeySlot(key));
  absl::StatusOr<RedisConnection*> node = Node(address);
  if (!node.ok()) return absl::UnavailableError(node.status().message());
  ReplicaState& state = replicas_[address];
  if (state.waits_until_ask == 0) {
    absl::StatusOr<RedisReply> info = (*node)->Call({"INFO", "replication"});
    if (!info.ok()) return absl::UnavailableError(info.status().message());
    absl::StatusOr<std::string> text = ReplyString(info->get());
    state.replicated = text.ok() && ConnectedReplicas(*text) > 0;
    state.waits_until_ask = kAskEvery;
  }
  --state.waits_until_ask;
  if (!state.replicated) return absl::OkStatus();
  absl::StatusOr<RedisReply> reply = (*node)->Call({"WAIT", "1", kTimeoutMs});
  if (!reply.ok()) return absl::UnavailableError(reply.status().message());
  absl::StatusOr<long long> acked = ReplyInteger(reply->get());
  if (!acked.ok() || *acked < 1) state.replicated = false;
  return absl::OkStatus();
}

std::string ClusterConnection::PrimaryOf(int slot) const {
  const int16_t index = slot_owner_[slot];
  return index < 0 ? std::string() : addresses_[index];
}

void ClusterConnection::SetPrimary(int slot, const std::string& address) {
  if (slot < 0 || slot >= kClusterSlots) return;
  auto at = std::find(addresses_.begin(), addresses_.end(), address);
  if (at == addresses_.end()) at = addresses_.insert(addresses_.end(), address);
  slot_owner_[slot] = static_cast<int16_t>(at - addresses_.begin());
}

std::string ClusterConnection::AddressFor(const RedisCommand& command) const {
  std::optional<std::string> key = RoutingKey(command);
  std::string address = key.has_value() ? PrimaryOf(KeySlot(*key)) : std::string();
  if (address.empty() && !addresses_.empty()) address = addresses_.front();
  if (address.empty() && !seeds_.empty()) address = seeds_.front();
  return address;
}

namespace {

// What one Run has learned so far: the replies it has, where each command
// still pending goes next, and why the last round fell short.
struct RunState {
  explicit RunState(size_t n) : out(n), ask(n) {}
  std::vector<RedisReply> out;
  std::vector<std::string> ask;  // the ASK target of command i, "" if none
  // MOVED's answers, applied over a re-read map that may not know yet.
  std::vector<std::pair<int, std::string>> moved;
  std::vector<size_t> again;  // the commands the next round sends
  bool failed = false;        // a node or a reply failed: back off
  bool reread = false;        // the slot map is stale: read it again
  absl::Status last;
};

// One node's share of a round: sends the commands `indices` to `node` (an
// ASKING before each one redirected there by ASK) and sorts each reply into
// state.out, or, with what its redirection or error says, into state.again.
void SendAndClassify(const std::string& address, absl::StatusOr<RedisConnection*> node,
                     const std::vector<size_t>& indices, const std::vector<RedisCommand>& commands,
                     RunState& state) {
  std::vector<RedisCommand> batch;
  for (size_t i : indices) {
    if (!state.ask[i].empty()) batch.push_back({"ASKING"});
    batch.push_back(commands[i]);
  }
  absl::StatusOr<std::vector<RedisReply>> replies =
      node.ok() ? (*node)->Run(batch) : absl::StatusOr<std::vector<RedisReply>>(node.status());
  if (!replies.ok()) {
    state.last = absl::Status(replies.status().code(),
                              absl::StrCat(address, ": ", replies.status().message()));
    state.failed = state.reread = true;
    for (size_t i : indices) state.ask[i].clear();
    state.again.insert(state.again.end(), indices.begin(), indices.end());
    return;
  }
  size_t r = 0;
  for (size_t i : indices) {
    if (!state.ask[i].empty()) ++r;  // ASKING's +OK
    RedisReply& reply = (*replies)[r++];
    const ClusterError e = ClassifyClusterError(reply.get());
    state.ask[i].clear();
    if (e.kind == ClusterError::kNone) {
      state.out[i] = std::move(reply);
      continue;
    }
    state.again.push_back(i);
    if (e.kind == ClusterError::kAsk) {
      state.ask[i] = e.address;
      continue;
    }
    if (e.kind == ClusterError::kMoved) state.moved.emplace_back(e.slot, e.address);
    state.reread = true;
    if (e.kind == ClusterError::kRetry) {
      state.failed = true;
      state.last = absl::UnavailableError(
          absl::StrCat(address, ": ", absl::string_view(reply->str, reply->len)));
    }
  }
}

}  // namespace

absl::StatusOr<std::vector<RedisReply>> ClusterConnection::Run(
    const std::vector<RedisCommand>& commands) {
  RunState state(commands.size());
  std::vector<size_t> pending(commands.size());
  for (size_t i = 0; i < pending.size(); ++i) pending[i] = i;
  std::chrono::milliseconds backoff = retry_.first_backoff;
  int failures = 0;
  int redirections = 0;
  while (!pending.empty()) {
    if (state.reread) {
      if (absl::Status s = ReadSlotMap(); !s.ok()) state.last = s;
      for (const auto& [slot, address] : state.moved) SetPrimary(slot, address);
      state.moved.clear();
      state.reread = false;
      if (absl::Status s = CheckRequired(); !s.ok()) return s;
    }
    std::map<std::string, std::vector<size_t>> by_node;
    for (size_t i : pending) {
      by_node[state.ask[i].empty() ? AddressFor(commands[i]) : state.ask[i]].push_back(i);
    }
    state.again.clear();
    state.failed = false;
    for (const auto& [address, indices] : by_node) {
      SendAndClassify(address, Node(address), indices, commands, state);
    }
    pending = std::move(state.again);
    std::sort(pending.begin(), pending.end());
    if (pending.empty()) break;
    if (state.failed) {
      if (++failures >= retry_.max_attempts) break;
      Emit(node_options_.log_sink, LogLevel::kDebug,
           absl::StrCat("redis cluster: attempt ", failures, " failed: ", state.last.message()));
      std::this_thread::sleep_for(backoff);
      backoff = std::min(backoff * 2, retry_.max_backoff);
    } else if (++redirections > kMaxRedirections) {
      state.last = absl::UnavailableError("redis cluster: too many redirections");
      break;
    }
  }
  if (!pending.empty()) {
    return absl::UnavailableError(
        absl::StrCat("redis cluster failed ", failures, " attempts: ", state.last.message()));
  }
  return std::move(state.out);
}

}  // namespace sieve::internal
