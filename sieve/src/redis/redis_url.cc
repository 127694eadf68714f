// ParseRedisUrl: "redis://HOST:PORT/NAME[?lease_ms=N&host_lease_ms=N&max_hosts=N&
// queue_partitions=N]" or
// "redis-cluster://HOST:PORT[,HOST:PORT...]/NAME[?...]", as given to `crawl --frontier`.
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "sieve/redis_sieve.h"

namespace sieve {
namespace {

// "HOST:PORT,HOST:PORT": every node with its port (a cluster has no default).
absl::StatusOr<RedisSieveOptions> ParseClusterNodes(const std::string& text,
                                                    absl::string_view nodes,
                                                    RedisSieveOptions base) {
  base.cluster_nodes.clear();
  for (absl::string_view node : absl::StrSplit(nodes, ',')) {
    const size_t colon = node.rfind(':');
    int port = 0;
    if (colon == absl::string_view::npos || colon == 0 ||
        !absl::SimpleAtoi(node.substr(colon + 1), &port) || port < 1 || port > 65535) {
      return absl::InvalidArgumentError(absl::StrCat(
          "frontier URL '", text, "': each cluster node must be HOST:PORT, got '", node, "'"));
    }
    base.cluster_nodes.emplace_back(node);
  }
  base.shard_bytes = kClusterShardBytes;
  return base;
}

}  // namespace

absl::StatusOr<RedisSieveOptions> ParseRedisUrl(std::string_view url, RedisSieveOptions base) {
  const std::string text(url);
  absl::string_view rest = text;
  const bool cluster = absl::ConsumePrefix(&rest, "redis-cluster://");
  if (!cluster && !absl::ConsumePrefix(&rest, "redis://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("frontier URL must look like redis://HOST:PORT/NAME or "
                     "redis-cluster://HOST:PORT[,HOST:PORT...]/NAME, got '",
                     text, "'"));
  }
  const size_t query = rest.find('?');
  if (query != absl::string_view::npos) {
    for (absl::string_view option : absl::StrSplit(rest.substr(query + 1), '&')) {
      int value = 0;
      const bool url_lease = absl::ConsumePrefix(&option, "lease_ms=");
      const bool host_lease = !url_lease && absl::ConsumePrefix(&option, "host_lease_ms=");
      const bool max_hosts =
          !url_lease && !host_lease && absl::ConsumePrefix(&option, "max_hosts=");
      const bool parts = !url_lease && !host_lease && !max_hosts &&
                         absl::ConsumePrefix(&option, "queue_partitions=");
      if (!(url_lease || host_lease || max_hosts || parts) || !absl::SimpleAtoi(option, &value) ||
          value < 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("frontier URL '", text,
                         "': the options are lease_ms=N, host_lease_ms=N, max_hosts=N and "
                         "queue_partitions=N (N >= 1), joined by '&'"));
      }
      if (parts) {
        base.queue_partitions = static_cast<uint32_t>(value);
      } else if (max_hosts) {
        base.max_hosts = static_cast<size_t>(value);
      } else {
        (url_lease ? base.lease_time : base.host_lease_time) = std::chrono::milliseconds(value);
      }
    }
    rest = rest.substr(0, query);
  }
  absl::string_view authority = rest.substr(0, rest.find('/'));
  if (authority.size() < rest.size()) {
    absl::string_view name = rest.substr(authority.size() + 1);
    if (!name.empty()) base.name = std::string(name);
  }
  if (cluster) return ParseClusterNodes(text, authority, std::move(base));
  const size_t colon = authority.rfind(':');
  if (colon != absl::string_view::npos) {
    int port = 0;
    if (!absl::SimpleAtoi(authority.substr(colon + 1), &port) || port < 1 || port > 65535) {
      return absl::InvalidArgumentError(absl::StrCat("bad port in frontier URL '", text, "'"));
    }
    base.port = port;
    authority = authority.substr(0, colon);
  }
  if (authority.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("no host in frontier URL '", text, "'"));
  }
  base.host = std::string(authority);
  return base;
}

}  // namespace sieve
