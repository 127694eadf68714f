// The baseline the Sieve is measured against: what a crawler writes without
// it, a FIFO (std::deque<std::string>) de-duplicated by an exact hash set of
// every URL ever pushed. Same push/pop surface as the Sieve.
//
//   HashSetQueue<absl::flat_hash_set<std::string>> queue;
//   queue.Push("https://a.example/");  // true: new, enqueued
//
// Threading: none (the benchmark pushes from one thread).
#ifndef BENCH_SIEVE_BASELINE_QUEUE_H_
#define BENCH_SIEVE_BASELINE_QUEUE_H_

#include <deque>
#include <optional>
#include <string>
#include <string_view>

namespace sieve_bench {

template <typename Set>
class HashSetQueue {
 public:
  bool Push(std::string_view url) {
    auto [it, inserted] = seen_.emplace(url);
    if (inserted) queue_.emplace_back(url);
    return inserted;
  }
  std::optional<std::string> Pop() {
    if (queue_.empty()) return std::nullopt;
    std::string url = std::move(queue_.front());
    queue_.pop_front();
    return url;
  }
  size_t size() const { return queue_.size(); }

 private:
  Set seen_;
  std::deque<std::string> queue_;
};

}  // namespace sieve_bench

#endif  // BENCH_SIEVE_BASELINE_QUEUE_H_
