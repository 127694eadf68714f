// Frontier::Checkpoint / Restore: the Frontier's part of a crawl checkpoint.
// The Sieve is saved under the Frontier's lock because every Sieve call that
// changes its queue or in-flight set (Push, TryPopEntry, MarkDone) is made
// under that lock too: holding it, the Sieve's state and the counts describe
// the same moment. Nothing per URL is kept here: a URL's depth and parent
// are in its Sieve payload, saved with it.
#include <utility>

#include "crawler/frontier.h"
#include "host_count_sketch.h"
#include "host_limit_counts.h"

namespace crawler {

absl::StatusOr<FrontierSnapshot> Frontier::Checkpoint(
    const std::function<absl::Status()>& save_sieve) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status saved = save_sieve();
  if (!saved.ok()) return saved;
  FrontierSnapshot snapshot;
  if (per_host_ != nullptr) {
    snapshot.per_host = per_host_->ExactCounts();
    snapshot.per_host_shared = per_host_->SharedCounts();
  }
  // The reopened Sieve queues what it queues now and what is unfinished now
  // (buffered, being fetched or parsed).
  for (size_t bucket = 0; bucket < HostCountSketch::kBuckets; ++bucket) {
    const uint64_t n = sieve_hosts_->count(bucket) + unfinished_hosts_->count(bucket);
    if (n > 0) snapshot.queued_hosts.emplace_back(bucket, n);
  }
  snapshot.stats = stats_;
  return snapshot;
}

void Frontier::Restore(const FrontierSnapshot& snapshot) {
  std::lock_guard<std::mutex> lock(mu_);
  if (per_host_ != nullptr) {
    for (const auto& [hash, count] : snapshot.per_host) per_host_->RestoreExact(hash, count);
    for (const auto& [bucket, count] : snapshot.per_host_shared) {
      per_host_->RestoreShared(bucket, count);
    }
  }
  for (const auto& [bucket, count] : snapshot.queued_hosts) {
    sieve_hosts_->AddToBucket(bucket, count);
  }
  stats_.offered = snapshot.stats.offered;
  stats_.accepted = snapshot.stats.accepted;
  stats_.over_host_limit = snapshot.stats.over_host_limit;
  // URLs handed out but not Done at the checkpoint are queued again in the
  // Sieve: they will be handed out anew.
  stats_.done = snapshot.stats.done;
  stats_.handed_out = snapshot.stats.done;
}

}  // namespace crawler
