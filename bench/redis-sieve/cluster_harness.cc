#include "cluster_harness.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace redis_bench {
namespace {

bool BenchPortFree(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool free = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return free;
}

// A data port whose cluster bus port (+10000) is free too, both < 65536.
int BenchClusterPort() {
  static std::mt19937 random(std::random_device{}());
  for (;;) {
    const int port = 20000 + static_cast<int>(random() % 30000);
    if (BenchPortFree(port) && BenchPortFree(port + 10000)) return port;
  }
}

}  // namespace

ClusterHarness::ClusterHarness(int primaries) {
  for (int i = 0; i < primaries; ++i) {
    nodes_.push_back(std::make_unique<RedisHarness>(
        std::vector<std::string>{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                                 "--logfile", "redis.log"},
        BenchClusterPort()));
  }
}

absl::Status ClusterHarness::Start() {
  for (auto& node : nodes_) {
    if (absl::Status s = node->Start(); !s.ok()) return s;
  }
  // redis-cli refuses a cluster of fewer than 3 primaries: a 1-node cluster
  // is made by hand (all slots to it).
  if (nodes_.size() < 3) {
    for (auto& node : nodes_) {
      for (size_t i = 0; i < nodes_.size(); ++i) {
        node->Command({"CLUSTER", "MEET", "127.0.0.1", std::to_string(nodes_[i]->port())});
      }
    }
    const int per = 16384 / static_cast<int>(nodes_.size());
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const int first = static_cast<int>(i) * per;
      const int last = i + 1 == nodes_.size() ? 16383 : first + per - 1;
      nodes_[i]->Command({"CLUSTER", "ADDSLOTSRANGE", std::to_string(first), std::to_string(last)});
    }
  } else {
    const std::string create =
        absl::StrCat("redis-cli --cluster create ", absl::StrJoin(Nodes(), " "),
                     " --cluster-yes >/dev/null 2>&1");
    if (std::system(create.c_str()) != 0) {
      return absl::InternalError(absl::StrCat(create, " failed (is redis-cli on PATH?)"));
    }
  }
  for (int attempt = 0; attempt < 1000; ++attempt) {
    size_t ok = 0;
    for (auto& node : nodes_) {
      ok += node->Command({"CLUSTER", "INFO"}).find("cluster_state:ok") != std::string::npos;
    }
    if (ok == nodes_.size()) return absl::OkStatus();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return absl::DeadlineExceededError("the cluster did not reach cluster_state:ok in 20 s");
}

std::vector<std::string> ClusterHarness::Nodes() const {
  std::vector<std::string> nodes;
  for (const auto& node : nodes_) nodes.push_back(absl::StrCat("127.0.0.1:", node->port()));
  return nodes;
}

double ClusterHarness::CpuSeconds() const {
  double total = 0;
  for (const auto& node : nodes_) total += node->CpuSeconds();
  return total;
}

uint64_t ClusterHarness::UsedMemory() const {
  uint64_t total = 0;
  for (const auto& node : nodes_) total += node->UsedMemory();
  return total;
}

}  // namespace redis_bench
