#include "app/redis_frontier.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "app/crawl_setup.h"
#include "crawler/host_queues.h"
#include "sieve/redis_sieve.h"
#include "spdlog/spdlog.h"

namespace crawler {
namespace {

double LongestDelaySeconds(const CrawlOptions& options) {
  double longest = std::max(0.0, options.delay_s);
  for (const HostRule& rule : options.hosts) longest = std::max(longest, rule.delay_s);
  return longest;
}

// --max-pages for the fleet: pages taken from NAME:pages (RedisSieve::
// TakePage). The sieve outlives the Frontier that uses this.
class RedisPageBudget final : public PageBudget {
 public:
  explicit RedisPageBudget(sieve::RedisSieve* sieve) : sieve_(sieve) {}
  bool Take(uint64_t limit) override { return sieve_->TakePage(limit); }
  void Return(uint64_t count) override { sieve_->ReturnPages(count); }

 private:
  sieve::RedisSieve* const sieve_;
};

// --per-ip and --ip-delay for the fleet: server slots in NAME:srv:<server>
// (RedisSieve::TakeServerSlot), handed out to the processes in the order
// they were refused. A slot is leased for the longest a fetch may last
// (--timeout) and 30 s more: a process killed mid-fetch holds its slots no
// longer than that. A refused process asks again every HostQueues::
// kFleetPoll while it still wants the server; it keeps its place in the
// line for kPatience without asking (50 polls: a process slowed down by
// load keeps it), and one that stopped asking holds the starts owed to it
// back no longer than that.
class RedisServerLeases final : public ServerLeases {
 public:
  static constexpr std::chrono::milliseconds kPatience{1000};
  RedisServerLeases(sieve::RedisSieve* sieve, double timeout_s)
      : sieve_(sieve),
        lease_(std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)) +
               std::chrono::seconds(30)) {}
  Grant Take(const std::string& address, int limit, absl::Duration interval) override {
    sieve::RedisSieve::ServerSlot slot = sieve_->TakeServerSlot(
        address, limit, absl::ToChronoMilliseconds(interval), lease_, kPatience);
    return {std::move(slot.token), absl::FromChrono(slot.retry_in)};
  }
  void Give(const std::string& address, const std::string& token,
            absl::Duration next_start_in) override {
    sieve_->GiveServerSlot(address, token, absl::ToChronoMilliseconds(next_start_in));
  }

 private:
  sieve::RedisSieve* const sieve_;
  const std::chrono::milliseconds lease_;
};

}  // namespace

absl::StatusOr<CrawlStart> OpenRedisCrawlStart(const CrawlOptions& options) {
  if (options.resume) {
    return absl::InvalidArgumentError(
        "--resume does not apply to a shared --frontier: its state is in Redis; start the "
        "process again with the same --frontier to rejoin the crawl");
  }
  sieve::RedisSieveOptions base;
  base.expected_count = options.expected;
  base.fp_rate = options.fp_rate;
  base.log_sink = CrawlSieveLogSink();
  // Host partitions: one process at a time fetches a host, so --per-host and
  // --delay hold fleet-wide; a host given back waits the longest configured
  // delay before another process may start on it.
  base.host_key = [](std::string_view url) { return AuthorityOf(std::string(url)); };
  base.host_cooldown =
      std::chrono::milliseconds(static_cast<int64_t>(LongestDelaySeconds(options) * 1000));
  absl::StatusOr<sieve::RedisSieveOptions> redis = sieve::ParseRedisUrl(options.frontier, base);
  if (!redis.ok()) return redis.status();
  absl::StatusOr<std::unique_ptr<sieve::RedisSieve>> sieve = sieve::RedisSieve::Connect(*redis);
  if (!sieve.ok()) {
    return absl::Status(sieve.status().code(), absl::StrCat("--frontier ", options.frontier, ": ",
                                                            sieve.status().message()));
  }
  spdlog::info("shared frontier {} ({}, name '{}'); checkpoints off", options.frontier,
               redis->cluster_nodes.empty()
                   ? absl::StrCat("Redis ", redis->host, ":", redis->port)
                   : absl::StrCat("Redis Cluster, ", redis->cluster_nodes.size(), " seed nodes"),
               redis->name);
  CrawlStart start;  // no state: checkpoints off
  if (options.max_pages > 0) start.shared_pages = std::make_shared<RedisPageBudget>(sieve->get());
  start.server_leases = std::make_shared<RedisServerLeases>(sieve->get(), options.timeout_s);
  start.sieve = *std::move(sieve);
  return start;
}

}  // namespace crawler
