// crawler/robots_cache.h: robots.txt policy for a whole crawl, one state per
// authority (scheme, host, port), shared by all fetcher threads.
//
// The cache never touches the network: it tells exactly one caller to fetch an
// authority's /robots.txt, and that caller reports the outcome with Record
// (following redirects first, see robots_outcome.h). Meanwhile and afterwards
// every URL of the authority is checked against the compiled rules.
//
// States per authority (RFC 9309 2.3.1 and 2.4):
//   unknown --Check--> fetching --Record 2xx--> parsed (fresh for max_age <= 24 h)
//                                --Record 3xx/4xx--> allow all (fresh for max_age)
//                                --Record 5xx/0--> unreachable: kUnreachable until
//                                  retry_at (back-off first_retry, doubling, capped
//                                  at max_retry), then one caller refetches.
//   An expired copy is refetched by one caller; the others keep using it for
//   that short while. While unreachable after a good copy, the old copy keeps
//   answering (RFC 9309 2.4 allows it). After `unreachable_as_missing_after`
//   (30 days) without an answer the file is treated as missing: allow all, as
//   RFC 9309 2.3.1.4 permits.
//
// Example:
//   auto cache = crawler::RobotsCache::Create({.agent = "crawl/0.1"});
//   crawler::RobotsCheck check = (*cache)->Check(url);
//   if (check.verdict == crawler::RobotsVerdict::kFetchRobots) {
//     ... fetch url.Authority() + "/robots.txt" ...
//     (*cache)->Record(url.Authority(), status, body);   // then Check again
//   }
//
// Threading: all methods are safe to call concurrently. Matching runs outside
// the lock on an immutable shared copy of the rules.
#ifndef CRAWLER_ROBOTS_CACHE_H_
#define CRAWLER_ROBOTS_CACHE_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "crawler/robots.h"
#include "crawler/robots_clock.h"
#include "crawler/url.h"

namespace crawler {

struct RobotsCacheOptions {
  // The crawler's User-Agent or its product token; groups are chosen by the
  // product token ("crawl/0.1" is "crawl"). Must have a non-empty token.
  std::string agent = "crawl";
  // How long a fetched robots.txt (or a 4xx "allow all") is used. RFC 9309
  // 2.4: SHOULD NOT be more than 24 hours; Create rejects more.
  std::chrono::seconds max_age = std::chrono::hours(24);
  // Back-off after an unreachable robots.txt: first_retry, then doubling
  // (60 s, 2 min, 4 min ...) up to max_retry. Shorter retries find a recovered
  // host sooner; each retry costs the host one request.
  std::chrono::seconds first_retry = std::chrono::seconds(60);
  std::chrono::seconds max_retry = std::chrono::hours(1);
  // After this long unreachable, treat robots.txt as missing (allow all).
  std::chrono::seconds unreachable_as_missing_after = std::chrono::hours(24 * 30);
  // A claimed fetch that never reported (its thread died) is handed to the
  // next caller after this long, so an authority cannot wait forever.
  std::chrono::seconds fetch_claim_timeout = std::chrono::minutes(5);
  // Bytes of robots.txt parsed (RFC 9309 2.5: at least 500 KiB).
  size_t max_bytes = kRobotsMaxBytes;
  // Authorities kept at most. Each costs ~250 bytes plus its parsed rules
  // (shared "allow all" for a 4xx; a typical robots.txt parses to 1-10 KB),
  // so 50,000 is ~15-500 MB. Past it, the oldest entry not being fetched is
  // evicted (insertion order): that host's robots.txt is fetched again when
  // its next URL comes, one extra request per eviction. Larger keeps more
  // hosts' rules when a crawl interleaves very many hosts; smaller bounds
  // RAM tighter. >= 1.
  size_t max_authorities = 50'000;
  // Time source; nullptr means RobotsClock::System(). Must outlive the cache.
  const RobotsClock* clock = nullptr;
};

enum class RobotsVerdict {
  kAllowed,      // fetch the URL
  kDisallowed,   // robots.txt forbids it: record it as blocked, do not fetch
  kFetchRobots,  // this caller must fetch /robots.txt now and Record the outcome
  kWait,         // another caller is fetching /robots.txt: check again shortly
  kUnreachable,  // /robots.txt unreachable: everything disallowed until retry_at
};

struct RobotsCheck {
  RobotsVerdict verdict;
  // kUnreachable: when the next fetch of /robots.txt may happen.
  RobotsClock::TimePoint retry_at{};
};

struct RobotsCacheStats {
  size_t authorities = 0;    // authorities with state (<= max_authorities)
  uint64_t evicted = 0;      // entries dropped to stay within max_authorities
  uint64_t fetches = 0;      // kFetchRobots handed out
  uint64_t parsed = 0;       // Record with 2xx
  uint64_t unavailable = 0;  // Record with 3xx/4xx
  uint64_t unreachable = 0;  // Record with 5xx/429/network error
};

class RobotsCache {
 public:
  static absl::StatusOr<std::unique_ptr<RobotsCache>> Create(RobotsCacheOptions options);

  // The verdict for `url` (its Authority() is the key). "/robots.txt" itself is
  // always kAllowed.
  RobotsCheck Check(const Url& url);
  // The outcome of the fetch a kFetchRobots asked for. `http_status` is the
  // final status (0: network error); `body` matters for 2xx only. An
  // unreachable answer's `retry_after` (a 429/503 Retry-After) replaces the
  // back-off before the next try, capped at max_retry.
  void Record(std::string_view authority, int http_status, std::string_view body,
              std::optional<std::chrono::seconds> retry_after = std::nullopt);

  // Crawl-delay of the crawler's group (or "*"), in seconds, once parsed.
  std::optional<double> CrawlDelay(std::string_view authority) const;
  // The Sitemap: lines of the authority's robots.txt, once parsed.
  std::vector<std::string> Sitemaps(std::string_view authority) const;
  // When /robots.txt of `authority` may next be fetched after an unreachable
  // answer; nullopt when it is not waiting for a retry.
  std::optional<RobotsClock::TimePoint> RetryAt(std::string_view authority) const;
  RobotsCacheStats Stats() const;

  RobotsCache(const RobotsCache&) = delete;
  RobotsCache& operator=(const RobotsCache&) = delete;

 private:
  struct Entry {
    std::shared_ptr<const RobotsRules> rules;  // null until the first answer
    RobotsClock::TimePoint fresh_until{};
    bool fetching = false;
    RobotsClock::TimePoint claimed_at{};
    int failures = 0;  // consecutive unreachable outcomes
    RobotsClock::TimePoint first_failure{};
    RobotsClock::TimePoint retry_at{};
  };

  explicit RobotsCache(RobotsCacheOptions options);
  bool NeedsFetch(const Entry& entry, RobotsClock::TimePoint now) const;
  std::shared_ptr<const RobotsRules> RulesFor(std::string_view authority) const;
  std::chrono::seconds Backoff(int failures) const;

  const RobotsCacheOptions options_;
  const RobotsClock& clock_;
  const std::shared_ptr<const RobotsRules> allow_all_;
  mutable std::mutex mu_;
  // The entry of `authority`, created (evicting the oldest idle one when
  // full) if missing; requires mu_.
  Entry& EntryLocked(std::string_view authority);

  std::unordered_map<std::string, Entry> entries_ ABSL_GUARDED_BY(mu_);
  // Authorities in insertion order, for eviction; one per entry.
  std::deque<std::string> order_ ABSL_GUARDED_BY(mu_);
  RobotsCacheStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace crawler

#endif  // CRAWLER_ROBOTS_CACHE_H_
