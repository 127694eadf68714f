// RobotsGate: the verdict table, robots.txt fetches with their redirects, and
// sitemap fetches.
#include "crawler/robots_gate.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "crawler/retry_after.h"
#include "crawler/robots_outcome.h"
#include "crawler/url.h"
#include "spdlog/spdlog.h"

namespace crawler {
namespace {

// The cache's retry time (steady clock) on the crawl's wall clock.
absl::Time ToAbslTime(RobotsClock::TimePoint at, absl::Time now) {
  const auto left = at - RobotsClock::System().Now();
  return now + absl::FromChrono(std::chrono::duration_cast<std::chrono::microseconds>(left));
}

FetchOutcome OutcomeOf(const FetchResult& result) {
  FetchOutcome outcome;
  outcome.status = static_cast<int>(result.status);
  outcome.failed = !result.error.empty() && result.error != kFetchBodyTooLarge;
  outcome.elapsed = absl::Milliseconds(result.fetch_ms);
  outcome.sent_after = absl::Milliseconds(result.sent_ms);
  return outcome;
}

// What an unreachable robots.txt answered, for the record of a given-up URL.
std::string UnreachableReason(const FetchResult& result, int tries) {
  const std::string what =
      result.error.empty() ? absl::StrCat("answered ", result.status) : result.error;
  return absl::StrCat("robots_unreachable: robots.txt ", what, " (", tries, " tries)");
}

// A 429/503 robots.txt's Retry-After, whole seconds rounded up: the server
// says when to ask again, not our back-off.
std::optional<std::chrono::seconds> RobotsRetryAfter(int status, const FetchResult& result) {
  if (status != 429 && status != 503) return std::nullopt;
  const std::optional<absl::Duration> wait = RetryAfterFromHeaders(result.headers, absl::Now());
  if (!wait.has_value()) return std::nullopt;
  return std::chrono::seconds(absl::ToInt64Seconds(absl::Ceil(*wait, absl::Seconds(1))));
}

// Nothing listens there (refused, or no such name): the pages would fail the
// same way, so waiting robots_retry x max_tries (3 min by default) for it
// only holds the crawl's end (e.g. a redirect to a dead port).
// A TLS handshake that fails on the host's first contact (robots.txt is it)
// is the same: plain HTTP on an https port, or a certificate we refuse; a
// retry in a minute meets the same server.
bool NoServer(const FetchResult& result) {
  const std::string_view kind = std::string_view(result.error).substr(0, result.error.find(':'));
  return result.status == 0 && (kind == kFetchConnect || kind == kFetchDns || kind == kFetchTls);
}

}  // namespace

RobotsGate::RobotsGate(RobotsCache* cache, Frontier* frontier, RobotsGateOptions options,
                       RobotsGateHooks hooks)
    : cache_(cache), frontier_(frontier), options_(std::move(options)), hooks_(std::move(hooks)) {}

std::optional<CrawlUrl> RobotsGate::Admit(CrawlUrl url, absl::Time now) {
  if (!options_.obey_robots) return url;
  absl::StatusOr<Url> parsed = Url::Parse(url.url);
  if (!parsed.ok()) return url;  // the fetcher reports what is wrong with it
  const std::string authority = parsed->Authority();
  RobotsCheck check{RobotsVerdict::kAllowed};
  std::string gave_up;
  {
    std::unique_lock<std::mutex> lock(mu_);
    auto given_up = given_up_.find(authority);
    if (given_up != given_up_.end()) {
      gave_up = given_up->second;
    } else {
      // Checked under our lock so that an outcome recorded meanwhile cannot
      // miss a URL parked below (RecordRobots drains under the same lock).
      check = cache_->Check(*parsed);
      if (check.verdict == RobotsVerdict::kWait) {
        // Its slot goes back: the URL re-enters its host queue when the
        // outcome comes, and leaves it spaced by the host's delay.
        const CrawlUrl slot_holder = url;
        waiting_[authority].push_back(std::move(url));
        ++stats_.parked;
        lock.unlock();
        frontier_->Release(slot_holder, FetchOutcome{}, now);  // not fetched
        return std::nullopt;
      }
      if (check.verdict == RobotsVerdict::kUnreachable) {
        ready_.emplace(ToAbslTime(check.retry_at, now), std::move(url));
        ++stats_.parked;
        return std::nullopt;
      }
    }
  }
  if (!gave_up.empty()) {
    Block(url, gave_up);
    return std::nullopt;
  }
  switch (check.verdict) {
    case RobotsVerdict::kAllowed:
      return url;
    case RobotsVerdict::kDisallowed:
      Block(url, "robots");
      return std::nullopt;
    default:
      break;  // kFetchRobots; kWait and kUnreachable were parked above
  }
  Pending pending;
  pending.authority = authority;
  pending.for_url = std::move(url);
  const std::string robots_url = authority + "/robots.txt";
  if (!Submit(robots_url, pending)) {  // shutting down: nobody will fetch it
    FetchResult aborted;
    aborted.error = std::string(kFetchAborted);
    RecordRobots(pending, 0, aborted);
  }
  return std::nullopt;
}

void RobotsGate::Block(const CrawlUrl& url, const std::string& error) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (error == "robots") {
      ++stats_.blocked;
    } else {
      ++stats_.gave_up;
    }
  }
  frontier_->Release(url, FetchOutcome{}, absl::Now());  // not fetched: no status
  std::shared_lock<std::shared_mutex> commit;  // record and Done: one step for a checkpoint
  if (hooks_.commit_scope) commit = hooks_.commit_scope();
  hooks_.on_blocked(url, error);
  frontier_->Done(url);
}

bool RobotsGate::Submit(const std::string& url, Pending pending) {
  uint64_t tag = 0;
  const Pending::Kind kind = pending.kind;
  {
    std::lock_guard<std::mutex> lock(mu_);
    tag = kTagBit | next_tag_++;
    if (pending.kind == Pending::Kind::kRobots) {
      ++stats_.robots_fetches;
    } else {
      ++stats_.sitemap_fetches;
    }
    pending_.emplace(tag, std::move(pending));
  }
  FetchRequest request;
  request.url = url;
  request.tag = tag;
  request.any_type = true;  // robots.txt and sitemaps are read whatever --accept-type says
  // robots.txt has its own cap, above what the parser keeps (RobotsCache's
  // max_bytes, >= 500 KiB): a file larger than --max-body is parsed from what
  // arrived, never a reason to give its host up.
  if (kind == Pending::Kind::kRobots) request.max_body = kRobotsFetchMaxBytes;
  if (hooks_.submit(std::move(request))) return true;
  std::lock_guard<std::mutex> lock(mu_);
  pending_.erase(tag);
  return false;
}

void RobotsGate::OnFetched(FetchResult&& result) {
  Pending pending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pending_.find(result.tag);
    if (it == pending_.end()) return;  // cannot happen: registered before Submit
    pending = std::move(it->second);
    pending_.erase(it);
    ++handling_;  // still not Idle: the response's work is not in the Frontier yet
  }
  if (pending.kind == Pending::Kind::kRobots) {
    OnRobotsFetched(std::move(result), std::move(pending));
  } else {
    OnSitemapFetched(std::move(result), pending);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    --handling_;
  }
  Wake();
}

void RobotsGate::OnRobotsFetched(FetchResult&& result, Pending pending) {
  if (hooks_.on_robots_fetched) hooks_.on_robots_fetched(result, pending.for_url);
  // A robots.txt cut at its cap is a complete answer for RFC 9309 2.5: the
  // parser keeps the whole lines of its first 500 KiB.
  const bool cut = result.error == kFetchBodyTooLarge && result.status != 0;
  const int status = result.error.empty() || cut ? static_cast<int>(result.status) : 0;
  if (!result.location.empty() &&
      RobotsRedirectStep(status, pending.hops) == RobotsRedirectAction::kFollow) {
    // The rules found at the target still belong to the original authority.
    ++pending.hops;
    const std::string target = WithoutUserinfo(result.location);
    if (Submit(target, pending)) return;
  }
  RecordRobots(pending, status, result);
}

void RobotsGate::RecordRobots(const Pending& pending, int status, const FetchResult& result) {
  const bool unreachable = ClassifyRobotsFetch(status) == RobotsFetchOutcome::kUnreachable;
  std::vector<CrawlUrl> released;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cache_->Record(pending.authority, status, result.body, RobotsRetryAfter(status, result));
    if (!unreachable) {
      failures_.erase(pending.authority);  // only failing authorities have an entry
    } else if (const int failures = ++failures_[pending.authority];
               failures >= options_.max_tries || NoServer(result)) {
      failures_.erase(pending.authority);
      if (given_up_.size() < kMaxGivenUp) {
        given_up_[pending.authority] = UnreachableReason(result, failures);
      }  // else not remembered: its robots.txt is tried again (see kMaxGivenUp)
      spdlog::warn("robots.txt of {}: {}: its URLs are not crawled", pending.authority,
                   UnreachableReason(result, failures));
    } else {
      // The first failures too, and when the next try is: the URLs wait
      // meanwhile, and a silent minute looks like a hung crawl.
      const std::optional<RobotsClock::TimePoint> retry_at = cache_->RetryAt(pending.authority);
      const absl::Time at = retry_at.has_value() ? ToAbslTime(*retry_at, absl::Now()) : absl::Now();
      spdlog::warn("robots.txt of {}: {} (try {} of {}); its URLs wait, next try in {} (at {})",
                   pending.authority,
                   result.error.empty() ? absl::StrCat("answered ", status) : result.error,
                   failures, options_.max_tries,
                   absl::FormatDuration(absl::Trunc(at - absl::Now(), absl::Seconds(1))),
                   absl::FormatTime("%H:%M:%S UTC", at, absl::UTCTimeZone()));
    }
    // Everything parked on this outcome goes back to its host queue.
    auto waiting = waiting_.find(pending.authority);
    if (waiting != waiting_.end()) {
      released = std::move(waiting->second);
      waiting_.erase(waiting);
      stats_.parked -= released.size();
    }
  }
  // The robots.txt request used the trigger's slot: it ends like a fetch
  // (the host's politeness sees its outcome), and the URL waits its turn in
  // its host queue again, as do the URLs that waited for the outcome (their
  // slots went back when they were parked).
  frontier_->Release(pending.for_url, OutcomeOf(result), absl::Now());
  frontier_->Requeue(pending.for_url);
  for (const CrawlUrl& url : released) frontier_->Requeue(url);
  if (options_.sitemaps && !unreachable) QueueSitemaps(pending.authority);
}

void RobotsGate::QueueSitemaps(const std::string& authority) {
  QueueSitemapList(cache_->Sitemaps(authority));
}

void RobotsGate::QueueSitemapUrls(const std::vector<std::string>& urls) { QueueSitemapList(urls); }

void RobotsGate::QueueSitemapList(const std::vector<std::string>& sitemaps) {
  for (const std::string& sitemap : sitemaps) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (sitemaps_seen_.size() >= static_cast<size_t>(options_.max_sitemap_files)) return;
      if (!sitemaps_seen_.insert(sitemap).second) continue;
    }
    CrawlUrl url;
    url.url = sitemap;
    frontier_->QueueSitemap(std::move(url));
  }
  Wake();
}

void RobotsGate::FetchSitemap(CrawlUrl url) {
  if (!url.drop_reason.empty()) {
    spdlog::debug("sitemap {}: not fetched, {}", url.url, url.drop_reason);
    return;
  }
  Pending pending;
  pending.kind = Pending::Kind::kSitemap;
  pending.depth = url.depth;
  pending.for_url = std::move(url);
  const std::string target = pending.for_url.url;
  if (!Submit(target, pending)) {  // shutting down: give the slot back
    frontier_->Release(pending.for_url, FetchOutcome{}, absl::Now());
  }
}

void RobotsGate::OnSitemapFetched(FetchResult&& result, const Pending& pending) {
  if (hooks_.on_sitemap_fetched) hooks_.on_sitemap_fetched(result, pending.for_url);
  frontier_->Release(pending.for_url, OutcomeOf(result), absl::Now());
  if (!result.error.empty() || result.status < 200 || result.status >= 300) {
    spdlog::debug("sitemap {}: {} {}", pending.for_url.url, result.status, result.error);
    return;
  }
  absl::StatusOr<Sitemap> map = ParseSitemap(result.body, options_.sitemap_limits);
  if (!map.ok()) {
    spdlog::debug("sitemap {}: {}", pending.for_url.url, std::string(map.status().message()));
    return;
  }
  if (!map->urls.empty() && hooks_.on_sitemap_urls) {
    hooks_.on_sitemap_urls(map->urls, map->priorities, pending.for_url.url);
  }
  std::vector<std::string> children;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.sitemap_urls += map->urls.size();
    if (pending.depth >= options_.max_sitemap_depth) return;
    for (const std::string& child : map->sitemaps) {
      if (sitemaps_seen_.size() >= static_cast<size_t>(options_.max_sitemap_files)) break;
      if (sitemaps_seen_.insert(child).second) children.push_back(child);
    }
  }
  for (const std::string& child : children) {
    CrawlUrl url;
    url.url = child;
    url.depth = pending.depth + 1;
    frontier_->QueueSitemap(std::move(url));
  }
}

std::optional<CrawlUrl> RobotsGate::TakeReady(absl::Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (ready_.empty() || ready_.begin()->first > now) return std::nullopt;
  CrawlUrl url = std::move(ready_.begin()->second);
  ready_.erase(ready_.begin());
  --stats_.parked;
  return url;
}

absl::Time RobotsGate::NextWakeTime() {
  std::lock_guard<std::mutex> lock(mu_);
  return ready_.empty() ? absl::InfiniteFuture() : ready_.begin()->first;
}

std::string RobotsGate::NextWakeReason() {
  std::lock_guard<std::mutex> lock(mu_);
  if (ready_.empty()) return "";
  return absl::StrCat("the retry of robots.txt of ", AuthorityOf(ready_.begin()->second.url));
}

bool RobotsGate::Fetching() {
  std::lock_guard<std::mutex> lock(mu_);
  return !pending_.empty() || handling_ > 0;
}

bool RobotsGate::Idle() {
  std::lock_guard<std::mutex> lock(mu_);
  return pending_.empty() && handling_ == 0 && waiting_.empty() && ready_.empty();
}

RobotsGateStats RobotsGate::Stats() {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void RobotsGate::Wake() {
  if (hooks_.wake) hooks_.wake();
}

}  // namespace crawler
