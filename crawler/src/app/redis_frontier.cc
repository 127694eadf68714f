#include "app/redis_frontier.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "sieve/redis_sieve.h"
#include "spdlog/spdlog.h"

namespace crawler {

absl::StatusOr<CrawlStart> OpenRedisCrawlStart(const CrawlOptions& options) {
  if (options.resume) {
    return absl::InvalidArgumentError(
        "--resume does not apply to a shared --frontier: its state is in Redis; start the "
        "process again with the same --frontier to rejoin the crawl");
  }
  sieve::RedisSieveOptions base;
  base.expected_count = options.expected;
  base.fp_rate = options.fp_rate;
  absl::StatusOr<sieve::RedisSieveOptions> redis = sieve::ParseRedisUrl(options.frontier, base);
  if (!redis.ok()) return redis.status();
  absl::StatusOr<std::unique_ptr<sieve::RedisSieve>> sieve = sieve::RedisSieve::Connect(*redis);
  if (!sieve.ok()) {
    return absl::Status(sieve.status().code(), absl::StrCat("--frontier ", options.frontier, ": ",
                                                            sieve.status().message()));
  }
  spdlog::info("shared frontier {} (Redis {}:{}, name '{}'); checkpoints off", options.frontier,
               redis->host, redis->port, redis->name);
  CrawlStart start;  // no state: checkpoints off
  start.sieve = *std::move(sieve);
  return start;
}

}  // namespace crawler
