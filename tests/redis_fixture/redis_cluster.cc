#include "redis_fixture/redis_cluster.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace sieve_test {
namespace {

bool ClusterPortFree(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool free = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return free;
}

// A port whose cluster bus port (+10000) is free too; cluster mode needs
// both below 65536, so the data port is drawn from [20000, 50000).
int ClusterPort() {
  static std::mt19937 random(std::random_device{}());
  for (;;) {
    const int port = 20000 + static_cast<int>(random() % 30000);
    if (ClusterPortFree(port) && ClusterPortFree(port + 10000)) return port;
  }
}

// Runs a shell command, returns its exit status and output.
int RunCli(const std::string& command, std::string& output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
  return pclose(pipe);
}

}  // namespace

RedisCluster::RedisCluster(int primaries, int replicas, bool with_module, int node_without_module)
    : primaries_(primaries), replicas_(replicas) {
  const int count = primaries * (1 + replicas);
  for (int i = 0; i < count; ++i) {
    nodes_.push_back(std::make_unique<RedisServer>(
        with_module && i != node_without_module,
        std::vector<std::string>{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                                 "--cluster-node-timeout", "1000", "--logfile", "redis.log"},
        ClusterPort()));
    dead_.push_back(false);
  }
}

absl::Status RedisCluster::Start() {
  std::string version;
  if (RunCli("redis-cli --version", version) != 0) {
    return absl::FailedPreconditionError(
        "redis-cli is not on PATH: install it (Debian package redis-tools)");
  }
  std::vector<std::string> addresses;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (absl::Status s = nodes_[i]->Start(); !s.ok()) return s;
    addresses.push_back(Address(i));
  }
  if (absl::Status joined = primaries_ < 3 ? JoinByHand() : Create(addresses); !joined.ok()) {
    return joined;
  }
  absl::Status healthy = WaitHealthy();
  if (!healthy.ok()) return healthy;
  // Replicas: wait until each primary has its replicas attached.
  for (int attempt = 0; replicas_ > 0 && attempt < 500; ++attempt) {
    int attached = 0;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const std::string info = CommandOn(i, {"INFO", "replication"});
      if (info.find("master_link_status:up") != std::string::npos) ++attached;
    }
    if (attached == primaries_ * replicas_) return AwaitStreaming();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (replicas_ > 0) return absl::DeadlineExceededError("replicas did not attach within 10 s");
  return absl::OkStatus();
}

absl::Status RedisCluster::AwaitStreaming() const {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (CommandOn(i, {"ROLE"}).rfind("master", 0) != 0) continue;
    for (int k = 0; k < 200; ++k) {  // w0, w1, ...: the first key of this primary's slots
      if (CommandOn(i, {"SET", absl::StrCat("w", k), "1"}) == "OK") break;
    }
  }
  for (int attempt = 0; attempt < 500; ++attempt) {
    int streaming = 0;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const std::string info = CommandOn(i, {"INFO", "replication"});
      const size_t at = info.find("slave_repl_offset:");
      if (at != std::string::npos && std::atoll(info.c_str() + at + 18) > 0) ++streaming;
    }
    if (streaming == primaries_ * replicas_) return absl::OkStatus();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return absl::DeadlineExceededError("the replicas received no replication stream within 10 s");
}

std::string RedisCluster::FrontierUrl(const std::string& name) const {
  std::vector<std::string> live;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (!dead_[i]) live.push_back(Address(i));
  }
  return absl::StrCat("redis-cluster://", absl::StrJoin(live, ","), "/", name);
}

int RedisCluster::KillPrimaryOf(const std::string& key) {
  int slot = -1;
  for (size_t i = 0; i < nodes_.size() && slot < 0; ++i) {
    if (!dead_[i] && !absl::SimpleAtoi(CommandOn(i, {"CLUSTER", "KEYSLOT", key}), &slot)) slot = -1;
  }
  const int primary = slot < 0 ? -1 : PrimaryOf(slot);
  if (primary >= 0) Kill(static_cast<size_t>(primary));
  return primary;
}

absl::Status RedisCluster::Create(const std::vector<std::string>& addresses) {
  std::string output;
  const std::string create =
      absl::StrCat("redis-cli --cluster create ", absl::StrJoin(addresses, " "),
                   " --cluster-replicas ", replicas_, " --cluster-yes");
  if (RunCli(create, output) != 0) {
    return absl::InternalError(absl::StrCat(create, " failed: ", output));
  }
  return absl::OkStatus();
}

absl::Status RedisCluster::JoinByHand() {
  if (replicas_ > 0) {
    return absl::InvalidArgumentError("a cluster of fewer than 3 primaries takes no replicas");
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    for (size_t j = 0; j < nodes_.size(); ++j) {
      CommandOn(i, {"CLUSTER", "MEET", "127.0.0.1", std::to_string(nodes_[j]->port())});
    }
  }
  const int per = 16384 / static_cast<int>(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const int first = static_cast<int>(i) * per;
    const int last = i + 1 == nodes_.size() ? 16383 : first + per - 1;
    const std::string added =
        CommandOn(i, {"CLUSTER", "ADDSLOTSRANGE", std::to_string(first), std::to_string(last)});
    if (added != "OK") return absl::InternalError(absl::StrCat("CLUSTER ADDSLOTSRANGE: ", added));
  }
  return absl::OkStatus();
}

std::string RedisCluster::Address(size_t i) const {
  return absl::StrCat("127.0.0.1:", nodes_[i]->port());
}

sieve::RedisSieveOptions RedisCluster::Options(const std::string& name) const {
  sieve::RedisSieveOptions options = nodes_[0]->Options(name);
  for (size_t i = 0; i < nodes_.size(); ++i) options.cluster_nodes.push_back(Address(i));
  options.shard_bytes = 4096;
  options.retry.max_attempts = 12;
  options.retry.first_backoff = std::chrono::milliseconds(20);
  options.retry.max_backoff = std::chrono::milliseconds(1000);
  options.io_timeout = std::chrono::milliseconds(500);
  return options;
}

long long RedisCluster::CommandCalls(const std::string& name) const {
  long long calls = 0;
  const std::string key = absl::StrCat("cmdstat_", name, ":calls=");
  for (size_t i = 0; i < size(); ++i) {
    const std::string stats = CommandOn(i, {"INFO", "commandstats"});
    const size_t at = stats.find(key);
    if (at != std::string::npos) calls += std::atoll(stats.c_str() + at + key.size());
  }
  return calls;
}

std::string RedisCluster::CommandOn(size_t i, const std::vector<std::string>& args) const {
  return nodes_[i]->Command(args);
}

std::string RedisCluster::Id(size_t i) const { return CommandOn(i, {"CLUSTER", "MYID"}); }

int RedisCluster::PrimaryOf(int slot) const {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (dead_[i]) continue;
    const std::string role = CommandOn(i, {"ROLE"});
    if (role.rfind("master", 0) != 0) continue;
    // The slot ranges on CLUSTER NODES' "myself" line (fields 9 on).
    const std::string nodes = CommandOn(i, {"CLUSTER", "NODES"});
    for (absl::string_view line : absl::StrSplit(nodes, '\n')) {
      if (line.find("myself") == absl::string_view::npos) continue;
      std::vector<absl::string_view> fields = absl::StrSplit(line, ' ');
      for (size_t f = 8; f < fields.size(); ++f) {
        std::vector<absl::string_view> range = absl::StrSplit(fields[f], '-');
        int first = 0;
        int last = 0;
        if (!absl::SimpleAtoi(range[0], &first)) continue;
        if (range.size() < 2 || !absl::SimpleAtoi(range[1], &last)) last = first;
        if (first <= slot && slot <= last) return static_cast<int>(i);
      }
    }
  }
  return -1;
}

absl::Status RedisCluster::WaitHealthy(int slot) const {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    bool ok = PrimaryOf(slot) >= 0;
    for (size_t i = 0; ok && i < nodes_.size(); ++i) {
      if (dead_[i]) continue;
      ok = CommandOn(i, {"CLUSTER", "INFO"}).find("cluster_state:ok") != std::string::npos;
    }
    if (ok) return absl::OkStatus();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return absl::DeadlineExceededError("the cluster did not become healthy within 20 s");
}

void RedisCluster::Kill(size_t i) {
  nodes_[i]->Kill();
  dead_[i] = true;
}

}  // namespace sieve_test
