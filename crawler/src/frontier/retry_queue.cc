#include "crawler/retry_queue.h"

#include <utility>

namespace crawler {

bool IsRetryable(long status, std::string_view error) {
  if (!error.empty()) {
    const std::string_view kind = error.substr(0, error.find(':'));
    return kind == "timeout" || kind == "connect" || kind == "reset";
  }
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

bool RetryQueue::ScheduleIfRetryable(const CrawlUrl& url, long status, std::string_view error,
                                     absl::Time now, int* attempts) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = attempts_.find(url.url);
  const int made = (it == attempts_.end() ? 0 : it->second) + 1;
  const bool full = heap_.size() >= options_.max_waiting;
  if (made > options_.max_retries || !IsRetryable(status, error) || full) {
    if (full && made <= options_.max_retries && IsRetryable(status, error)) ++full_refusals_;
    if (it != attempts_.end()) attempts_.erase(it);
    *attempts = made;
    return false;
  }
  attempts_[url.url] = made;
  // Retry k (k = made) waits first_backoff * 2^(k-1); made <= max_retries <= 100
  // (the flag's bound), and absl::Duration saturates instead of overflowing.
  absl::Duration wait = options_.first_backoff;
  for (int k = 1; k < made; ++k) wait *= 2;
  heap_.push(Entry{now + wait, next_order_++, url});
  ++scheduled_;
  return true;
}

std::optional<CrawlUrl> RetryQueue::TakeDue(absl::Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (heap_.empty() || heap_.top().due > now) return std::nullopt;
  CrawlUrl url = heap_.top().url;
  heap_.pop();
  return url;
}

absl::Time RetryQueue::NextDueTime() const {
  std::lock_guard<std::mutex> lock(mu_);
  return heap_.empty() ? absl::InfiniteFuture() : heap_.top().due;
}

std::string RetryQueue::NextDueUrl() const {
  std::lock_guard<std::mutex> lock(mu_);
  return heap_.empty() ? std::string() : heap_.top().url.url;
}

size_t RetryQueue::waiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return heap_.size();
}

uint64_t RetryQueue::scheduled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return scheduled_;
}

uint64_t RetryQueue::full_refusals() const {
  std::lock_guard<std::mutex> lock(mu_);
  return full_refusals_;
}

}  // namespace crawler
