// Frontier: a lock around the host queues and the per-host counts. The Sieve
// has its own locks; calling it under mu_ keeps "pushed into the Sieve" and
// "counted in the sketches" one step, and lets Checkpoint save the Sieve at a
// moment the counts describe.
#include "crawler/frontier.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "host_count_sketch.h"
#include "host_limit_counts.h"
#include "sieve/sieve.h"
#include "spdlog/spdlog.h"
#include "url_payload.h"

namespace crawler {

absl::StatusOr<std::unique_ptr<Frontier>> Frontier::Create(sieve::Sieve* sieve,
                                                           const FrontierOptions& options,
                                                           std::unique_ptr<HostPolicy> policy) {
  if (sieve == nullptr) return absl::InvalidArgumentError("Frontier needs a Sieve");
  if (options.max_buffered < 1) {
    return absl::InvalidArgumentError("FrontierOptions.max_buffered must be >= 1");
  }
  if (options.per_host < 1) return absl::InvalidArgumentError("per_host must be >= 1");
  if (options.delay < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("delay must be >= 0");
  }
  if (!(options.pass_over_per_second > 0)) {
    return absl::InvalidArgumentError("FrontierOptions.pass_over_per_second must be > 0");
  }
  if (policy == nullptr)
    policy = std::make_unique<FixedDelayPolicy>(options.per_host, options.delay);
  return std::unique_ptr<Frontier>(new Frontier(sieve, options, std::move(policy)));
}

Frontier::Frontier(sieve::Sieve* sieve, const FrontierOptions& options,
                   std::unique_ptr<HostPolicy> policy)
    : sieve_(sieve),
      options_(options),
      policy_(std::move(policy)),
      queues_(policy_.get(), options.max_buffered_per_host, options.addresses.get(),
              options.addresses != nullptr ? options.server_leases.get() : nullptr),
      sieve_hosts_(std::make_unique<HostCountSketch>()),
      unfinished_hosts_(std::make_unique<HostCountSketch>()) {
  if (options.max_pages_per_host > 0) per_host_ = std::make_unique<HostLimitCounts>();
}

Frontier::~Frontier() {
  // Pages taken from the fleet's budget and not used go back to the others.
  if (options_.shared_pages != nullptr && shared_pages_held_ > 0) {
    options_.shared_pages->Return(shared_pages_held_);
  }
}

bool Frontier::UnderHostLimitLocked(const std::string& url, std::string* authority) {
  if (options_.max_pages_per_host == 0) return true;
  *authority = AuthorityOf(url);
  if (per_host_->Get(*authority) < options_.max_pages_per_host) return true;
  ++stats_.over_host_limit;
  return false;
}

int32_t Frontier::PriorityOf(const std::string& url, int depth) const {
  if (options_.priority == nullptr || !options_.priority->any()) return 0;
  return options_.priority->Of(url, AuthorityOf(url), depth);
}

bool Frontier::OfferLocked(const std::string& url, std::string_view payload, int32_t priority) {
  ++stats_.offered;
  std::string authority;
  if (!UnderHostLimitLocked(url, &authority)) return false;
  if (!sieve_->Push(url, payload, priority)) return false;
  ++stats_.accepted;
  if (authority.empty()) authority = AuthorityOf(url);
  sieve_hosts_->Add(authority);
  if (per_host_ != nullptr) per_host_->Increment(authority);
  return true;
}

bool Frontier::Offer(const CrawlUrl& url) {
  const std::string payload =
      EncodeUrlPayload({url.depth, url.redirect_hops, url.parent, url.previous});
  const int32_t priority = PriorityOf(url.url, url.depth);
  std::lock_guard<std::mutex> lock(mu_);
  return OfferLocked(url.url, payload, priority);
}

size_t Frontier::OfferLinks(const std::vector<std::string>& urls, int depth,
                            const std::string& parent,
                            const std::vector<double>& sitemap_priorities) {
  const std::string payload = EncodeUrlPayload(depth, 0, parent);
  std::vector<int32_t> priorities;  // empty: all at 0
  if (options_.priority != nullptr && options_.priority->any()) {
    priorities.reserve(urls.size());
    for (size_t i = 0; i < urls.size(); ++i) {
      priorities.push_back(i < sitemap_priorities.size()
                               ? options_.priority->OfSitemapUrl(urls[i], AuthorityOf(urls[i]),
                                                                 depth, sitemap_priorities[i])
                               : PriorityOf(urls[i], depth));
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (per_host_ != nullptr) {  // per-URL check; the batch cannot know the counts
    size_t added = 0;
    for (size_t i = 0; i < urls.size(); ++i) {
      added += OfferLocked(urls[i], payload, priorities.empty() ? 0 : priorities[i]);
    }
    return added;
  }
  std::vector<std::string_view> views(urls.begin(), urls.end());
  const std::vector<std::string_view> payloads(urls.size(), payload);
  std::unique_ptr<bool[]> accepted(new bool[urls.size()]());
  const size_t added =
      sieve_->PushBatch(views, payloads, priorities, absl::MakeSpan(accepted.get(), urls.size()));
  stats_.offered += urls.size();
  stats_.accepted += added;
  std::string scratch;  // AuthorityView's copy, for a URL with userinfo only
  for (size_t i = 0; i < urls.size(); ++i) {
    if (accepted[i]) sieve_hosts_->Add(AuthorityView(urls[i], scratch));
  }
  return added;
}

void Frontier::RefillLocked(absl::Time now) {
  // URLs over their host's cap do not count against max_buffered (so other
  // hosts behind them still get in) but have their own, larger budget; past
  // it, URLs of hosts at their cap are passed over (given back to the Sieve).
  const size_t max_over_cap = 4 * options_.max_buffered;
  pass_over_waiting_ = false;
  bool may_pass_over = false;
  bool asked = false;
  while (queues_.queued() - queues_.over_cap() < options_.max_buffered &&
         carried_.size() < options_.max_buffered) {
    const bool overflow_full = queues_.over_cap() >= max_over_cap;
    if (overflow_full && !asked) {
      may_pass_over = MayPassOverLocked(now);
      asked = true;
    }
    if (overflow_full && (!may_pass_over || pass_over_tokens_ < 1)) {
      pass_over_waiting_ = may_pass_over;
      return;
    }
    std::optional<sieve::SieveEntry> popped = sieve_->TryPopEntry();
    if (!popped.has_value()) return;
    CrawlUrl url;
    url.url = std::move(popped->url);
    url.priority = popped->priority;
    url.authority = AuthorityOf(url.url);
    if (overflow_full && queues_.AtCap(url.authority)) {
      sieve_->Defer(url.url);  // its count in sieve_hosts_ stays: it is queued again
      pass_over_tokens_ -= 1;
      ++stats_.passed_over;
      continue;
    }
    sieve_hosts_->Remove(url.authority);
    unfinished_hosts_->Add(url.authority);
    DecodePayloadLocked(popped->payload, &url);
    if (url.previous.has_value() &&
        url.previous->fetched_at + absl::Seconds(url.previous->revisit_s) > now) {
      url.carried = true;  // not due: recorded, not fetched
      carried_.push_back(std::move(url));
      continue;
    }
    queues_.Add(std::move(url));
    asked = false;  // that host may be at its cap now: ask again
  }
}

void Frontier::DecodePayloadLocked(const std::string& payload, CrawlUrl* url) {
  absl::StatusOr<UrlPayload> decoded = DecodeUrlPayload(payload);
  if (!decoded.ok()) {
    // Crawled all the same, at depth 0 with no parent: a damaged payload must
    // not cost the URL. The first few are logged; the count is in Stats().
    if (++stats_.bad_payloads <= 10) {
      spdlog::warn("{}: {} ({} bytes); crawled at depth 0 with no parent", url->url,
                   std::string(decoded.status().message()), payload.size());
    }
    return;
  }
  url->depth = decoded->depth;
  url->redirect_hops = decoded->redirect_hops;
  url->parent = std::move(decoded->parent);
  url->previous = std::move(decoded->previous);
}

bool Frontier::MayPassOverLocked(absl::Time now) {
  if (options_.max_buffered_per_host == 0 || !OtherHostsQueuedLocked()) return false;
  const double burst = static_cast<double>(options_.max_buffered);
  const double elapsed = std::max(0.0, absl::ToDoubleSeconds(now - pass_over_refilled_));
  pass_over_tokens_ = std::min(burst, pass_over_tokens_ + elapsed * options_.pass_over_per_second);
  pass_over_refilled_ = now;
  return true;
}

bool Frontier::OtherHostsQueuedLocked() const {
  absl::flat_hash_set<size_t> buckets;
  uint64_t backlogged = 0;
  for (const std::string& authority : queues_.at_cap()) {
    const size_t bucket = sieve_hosts_->Bucket(authority);
    if (buckets.insert(bucket).second) backlogged += sieve_hosts_->count(bucket);
  }
  return sieve_hosts_->total() > backlogged;
}

bool Frontier::PageLimitReached() {
  std::lock_guard<std::mutex> lock(mu_);
  return PageLimitReachedLocked();
}

bool Frontier::PageLimitReachedLocked() const {
  if (options_.max_pages == 0) return false;
  if (options_.shared_pages == nullptr) return stats_.handed_out >= options_.max_pages;
  return shared_pages_spent_ && shared_pages_held_ == 0;
}

bool Frontier::HoldSharedPageLocked(absl::Time now) {
  if (options_.max_pages == 0 || options_.shared_pages == nullptr) return true;
  if (shared_pages_held_ > 0) return true;
  // A round trip to the budget only when a URL is ready to go: a page taken
  // and then held idle is one the others may not fetch meanwhile.
  if (shared_pages_spent_ || queues_.NextReadyTime() > now) return false;
  if (!options_.shared_pages->Take(options_.max_pages)) {
    shared_pages_spent_ = true;
    return false;
  }
  ++shared_pages_held_;
  return true;
}

std::optional<CrawlUrl> Frontier::Next(absl::Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (PageLimitReachedLocked()) return std::nullopt;
  RefillLocked(now);
  if (!carried_.empty()) {
    CrawlUrl carried = std::move(carried_.front());
    carried_.pop_front();
    ++stats_.handed_out;
    return carried;
  }
  if (!HoldSharedPageLocked(now)) return std::nullopt;
  std::optional<CrawlUrl> url = queues_.TakeReady(now);
  if (!url.has_value()) return url;
  if (url->sitemap) {
    --sitemaps_queued_;
  } else {
    ++stats_.handed_out;
    if (options_.shared_pages != nullptr && options_.max_pages > 0) --shared_pages_held_;
  }
  return url;
}

void Frontier::QueueSitemap(CrawlUrl url) {
  std::lock_guard<std::mutex> lock(mu_);
  url.sitemap = true;
  ++sitemaps_queued_;
  queues_.Add(std::move(url));
}

absl::Time Frontier::NextReadyTime() {
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Time ready = queues_.NextReadyTime();
  if (!pass_over_waiting_) return ready;
  // Out of pass-over tokens with URLs of other hosts still behind a backlog:
  // look again once a few tokens have come back.
  return std::min(ready, pass_over_refilled_ + absl::Milliseconds(10));
}

std::string Frontier::NextReadyReason(absl::Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Time ready = queues_.NextReadyTime();
  if (pass_over_waiting_ && pass_over_refilled_ + absl::Milliseconds(10) < ready) {
    return "tokens to pass over URLs of hosts at their queue cap";
  }
  const std::string& authority = queues_.NextReadyAuthority();
  if (authority.empty() || ready == absl::InfiniteFuture()) return "";
  if (ready <= now) return absl::StrCat(authority, " (ready)");
  std::string address;
  switch (queues_.ServerHoldOf(authority, ready, &address)) {
    case ServerHold::kInterval:
      return absl::StrCat("the interval between requests to server ", address, " (ip-delay ",
                          absl::FormatDuration(policy_->AddressInterval(authority)), ") for ",
                          authority);
    case ServerHold::kSlots:
      return absl::StrCat("a free connection to server ", address, " (per-ip ",
                          policy_->AddressConnections(authority), ") for ", authority);
    case ServerHold::kFleet:
      return absl::StrCat("the fleet's lease on server ", address, " (per-ip ",
                          policy_->AddressConnections(authority), ", ip-delay ",
                          absl::FormatDuration(policy_->AddressInterval(authority)), ") for ",
                          authority);
    case ServerHold::kNone:
      break;
  }
  const std::string pause = policy_->PauseReason(authority, ready);
  if (!pause.empty()) return absl::StrCat(pause, " of ", authority);
  return absl::StrCat("the delay between requests to ", authority, " (",
                      absl::FormatDuration(policy_->StartInterval(authority)), ")");
}

void Frontier::Release(const CrawlUrl& url, const FetchOutcome& outcome, absl::Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  queues_.Release(url.authority, outcome, now);
}

void Frontier::Done(const CrawlUrl& url) {
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.done;
  sieve_->MarkDone(url.url);
  unfinished_hosts_->Remove(url.authority.empty() ? AuthorityOf(url.url) : url.authority);
}

void Frontier::Requeue(const CrawlUrl& url) {
  std::lock_guard<std::mutex> lock(mu_);
  --stats_.handed_out;
  if (options_.shared_pages != nullptr && options_.max_pages > 0) ++shared_pages_held_;
  queues_.Add(url);
}

bool Frontier::Exhausted() {
  std::lock_guard<std::mutex> lock(mu_);
  const bool unfinished = stats_.done < stats_.handed_out;
  if (unfinished) return false;
  if (PageLimitReachedLocked()) return true;
  if (sitemaps_queued_ > 0) return false;
  // Buffered URLs count as in flight for the Sieve until Done, so a finished
  // Sieve means our queues are empty too.
  return sieve_->IsFinished();
}

FrontierStats Frontier::Stats() {
  std::lock_guard<std::mutex> lock(mu_);
  FrontierStats stats = stats_;
  stats.buffered = queues_.queued();
  stats.fetching = queues_.fetching();
  stats.unfinished = stats_.handed_out - stats_.done;
  stats.authorities = queues_.authorities();
  stats.servers = queues_.servers();
  stats.server_waits = queues_.server_waits();
  stats.server_slot_waits = queues_.server_slot_waits();
  stats.server_delay_waits = queues_.server_delay_waits();
  stats.servers_counted = queues_.servers_counted();
  stats.host_limit_bytes = per_host_ != nullptr ? per_host_->MemoryBytes() : 0;
  return stats;
}

std::vector<std::pair<std::string, ServerCount>> Frontier::BusiestServers(size_t limit) {
  std::lock_guard<std::mutex> lock(mu_);
  return queues_.BusiestServers(limit);
}

}  // namespace crawler
