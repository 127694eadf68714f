// RobotsCache: the per-authority state machine of robots.txt fetches.
#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "crawler/robots_cache.h"
#include "crawler/robots_outcome.h"

namespace crawler {

absl::StatusOr<std::unique_ptr<RobotsCache>> RobotsCache::Create(RobotsCacheOptions options) {
  if (RobotsProductToken(options.agent).empty()) {
    return absl::InvalidArgumentError("robots agent '" + options.agent +
                                      "' has no product token ([A-Za-z_-]+)");
  }
  if (options.max_age <= std::chrono::seconds(0) || options.max_age > std::chrono::hours(24)) {
    return absl::InvalidArgumentError("robots max_age must be in (0, 24 h] (RFC 9309 2.4)");
  }
  if (options.first_retry <= std::chrono::seconds(0) || options.max_retry < options.first_retry) {
    return absl::InvalidArgumentError("robots retry: need 0 < first_retry <= max_retry");
  }
  if (options.max_bytes < kRobotsMaxBytes) {
    return absl::InvalidArgumentError("robots max_bytes must be at least 500 KiB (RFC 9309 2.5)");
  }
  if (options.max_authorities < 1) {
    return absl::InvalidArgumentError("robots max_authorities must be >= 1");
  }
  return std::unique_ptr<RobotsCache>(new RobotsCache(std::move(options)));
}

RobotsCache::RobotsCache(RobotsCacheOptions options)
    : options_(std::move(options)),
      clock_(options_.clock != nullptr ? *options_.clock : RobotsClock::System()),
      allow_all_(std::make_shared<const RobotsRules>(RobotsRules::AllowAll())) {}

bool RobotsCache::NeedsFetch(const Entry& entry, RobotsClock::TimePoint now) const {
  if (entry.fetching && now - entry.claimed_at < options_.fetch_claim_timeout) return false;
  if (entry.failures > 0) return now >= entry.retry_at;
  return entry.rules == nullptr || now >= entry.fresh_until;
}

RobotsCache::Entry& RobotsCache::EntryLocked(std::string_view authority) {
  const std::string key(authority);
  if (auto it = entries_.find(key); it != entries_.end()) return it->second;
  // Evict the oldest entries not being fetched (a fetching one goes to the
  // back: its Record must find it). At most one pass over the order.
  for (size_t tries = order_.size(); entries_.size() >= options_.max_authorities && tries > 0;
       --tries) {
    std::string oldest = std::move(order_.front());
    order_.pop_front();
    auto it = entries_.find(oldest);
    if (it == entries_.end()) continue;
    if (it->second.fetching) {
      order_.push_back(std::move(oldest));
      continue;
    }
    entries_.erase(it);
    ++stats_.evicted;
  }
  order_.push_back(key);
  return entries_[key];
}

RobotsCheck RobotsCache::Check(const Url& url) {
  // RFC 9309 2.2.2: "/robots.txt" is implicitly allowed (and it is how the
  // rules are fetched in the first place).
  if (url.path() == "/robots.txt" && !url.has_query()) return {RobotsVerdict::kAllowed};
  std::shared_ptr<const RobotsRules> rules;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Entry& entry = EntryLocked(url.Authority());
    const RobotsClock::TimePoint now = clock_.Now();
    if (NeedsFetch(entry, now)) {
      entry.fetching = true;
      entry.claimed_at = now;
      ++stats_.fetches;
      return {RobotsVerdict::kFetchRobots};
    }
    if (entry.failures > 0 && now - entry.first_failure >= options_.unreachable_as_missing_after) {
      rules = allow_all_;
    } else if (entry.rules != nullptr) {
      rules = entry.rules;  // fresh, being refreshed, or the last good copy
    } else if (entry.failures > 0) {
      return {RobotsVerdict::kUnreachable, entry.retry_at};
    } else {
      return {RobotsVerdict::kWait};
    }
  }
  return {rules->IsAllowed(url) ? RobotsVerdict::kAllowed : RobotsVerdict::kDisallowed};
}

std::chrono::seconds RobotsCache::Backoff(int failures) const {
  std::chrono::seconds delay = options_.first_retry;
  for (int i = 1; i < failures && delay < options_.max_retry; ++i) delay *= 2;
  return std::min(delay, options_.max_retry);
}

void RobotsCache::Record(std::string_view authority, int http_status, std::string_view body,
                         std::optional<std::chrono::seconds> retry_after) {
  const RobotsFetchOutcome outcome = ClassifyRobotsFetch(http_status);
  // Parse outside the lock: a 500 KiB file takes a few milliseconds.
  std::shared_ptr<const RobotsRules> parsed;
  if (outcome == RobotsFetchOutcome::kParse) {
    parsed = std::make_shared<const RobotsRules>(
        RobotsRules::Parse(body, options_.agent, options_.max_bytes));
  }
  std::lock_guard<std::mutex> lock(mu_);
  Entry& entry = EntryLocked(authority);
  const RobotsClock::TimePoint now = clock_.Now();
  entry.fetching = false;
  if (outcome == RobotsFetchOutcome::kUnreachable) {
    ++stats_.unreachable;
    if (entry.failures++ == 0) entry.first_failure = now;
    entry.retry_at =
        now + (retry_after.has_value()
                   ? std::clamp(*retry_after, std::chrono::seconds(1), options_.max_retry)
                   : Backoff(entry.failures));
    return;
  }
  if (outcome == RobotsFetchOutcome::kParse) {
    ++stats_.parsed;
    entry.rules = std::move(parsed);
  } else {
    ++stats_.unavailable;
    entry.rules = allow_all_;
  }
  entry.failures = 0;
  entry.fresh_until = now + options_.max_age;
}

std::shared_ptr<const RobotsRules> RobotsCache::RulesFor(std::string_view authority) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(std::string(authority));
  return it == entries_.end() ? nullptr : it->second.rules;
}

std::optional<double> RobotsCache::CrawlDelay(std::string_view authority) const {
  std::shared_ptr<const RobotsRules> rules = RulesFor(authority);
  return rules == nullptr ? std::nullopt : rules->crawl_delay();
}

std::vector<std::string> RobotsCache::Sitemaps(std::string_view authority) const {
  std::shared_ptr<const RobotsRules> rules = RulesFor(authority);
  return rules == nullptr ? std::vector<std::string>() : rules->sitemaps();
}

std::optional<RobotsClock::TimePoint> RobotsCache::RetryAt(std::string_view authority) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(std::string(authority));
  if (it == entries_.end() || it->second.failures == 0) return std::nullopt;
  return it->second.retry_at;
}

RobotsCacheStats RobotsCache::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  RobotsCacheStats stats = stats_;
  stats.authorities = entries_.size();
  return stats;
}

}  // namespace crawler
