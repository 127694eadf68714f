// Frontier::Checkpoint / Restore: the Frontier's part of a crawl checkpoint.
// The Sieve is saved under the Frontier's lock because every Sieve call that
// changes its queue or in-flight set (Push, TryPop, MarkDone) is made under
// that lock too: holding it, the Sieve's state and the side table describe
// the same moment.
#include <utility>

#include "crawler/frontier.h"
#include "host_count_sketch.h"

namespace crawler {

absl::StatusOr<FrontierSnapshot> Frontier::Checkpoint(
    const std::function<absl::Status()>& save_sieve) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status saved = save_sieve();
  if (!saved.ok()) return saved;
  FrontierSnapshot snapshot;
  snapshot.pending.reserve(meta_.size());
  for (const auto& [url, meta] : meta_) {
    CrawlUrl entry;
    entry.url = url;
    entry.depth = meta.depth;
    entry.redirect_hops = meta.redirect_hops;
    if (meta.parent != nullptr) entry.parent = *meta.parent;
    snapshot.pending.push_back(std::move(entry));
  }
  snapshot.per_host.assign(per_host_.begin(), per_host_.end());
  snapshot.stats = stats_;
  return snapshot;
}

void Frontier::Restore(const FrontierSnapshot& snapshot) {
  std::lock_guard<std::mutex> lock(mu_);
  // The snapshot is in hash order, so siblings are not adjacent: intern
  // parents through a map to share one copy per parent again.
  absl::flat_hash_map<std::string, std::shared_ptr<const std::string>> parents;
  for (const CrawlUrl& url : snapshot.pending) {
    std::shared_ptr<const std::string>& parent = parents[url.parent];
    if (parent == nullptr && !url.parent.empty()) {
      parent = std::make_shared<const std::string>(url.parent);
    }
    meta_.insert_or_assign(url.url, Meta{url.depth, url.redirect_hops, parent});
    sieve_hosts_->Add(AuthorityOf(url.url));  // every pending URL is queued in the reopened Sieve
  }
  for (const auto& [authority, count] : snapshot.per_host) per_host_[authority] = count;
  stats_.offered = snapshot.stats.offered;
  stats_.accepted = snapshot.stats.accepted;
  stats_.over_host_limit = snapshot.stats.over_host_limit;
  // URLs handed out but not Done at the checkpoint are queued again in the
  // Sieve: they will be handed out anew.
  stats_.done = snapshot.stats.done;
  stats_.handed_out = snapshot.stats.done;
}

}  // namespace crawler
